"""The documented formats of credentials whose value alone says what it is.

Pure data for :mod:`session_memory.core.redact`: one :class:`TokenFormat` per provider's token
family, built from the provider's documentation of its prefix, alphabet and length. Each
pattern is an anchored regular expression (it is tried with ``re.match`` at the position of
one of its triggers) and linear in its input: possessive or bounded repeats only. The triggers
are the literal starts of a match: in the text's own case when written with a capital, in
any case otherwise. A format whose start is not a literal (Discord's base64 user id) has
``scan``, a pattern searched for in the text instead.

Order matters where two formats share a start: the earlier one wins (``sk-ant-`` before
``sk-``).
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = ["TOKEN_FORMATS", "TokenFormat"]


class TokenFormat(NamedTuple):
    """One credential format: the marker kind, the anchored pattern and where it may start."""

    kind: str
    pattern: str
    triggers: tuple[str, ...]
    scan: str = ""
    """For a format without a literal start: a pattern searched for in the text, each match
    inside (or just after) the run of URL-safe characters a token starts; with the minimum
    text length worth searching."""
    scan_min_length: int = 0


_END: Final = r"(?![A-Za-z0-9_])"  # a token ends where its alphabet does
_URLSAFE_END: Final = r"(?![A-Za-z0-9_-])"
_START: Final = r"(?<![A-Za-z0-9_])"
_URLSAFE_START: Final = r"(?<![A-Za-z0-9_-])"

TOKEN_FORMATS: Final[tuple[TokenFormat, ...]] = (
    TokenFormat(
        "private-key",
        # Through the END line, or to the end of the text when it is missing (a truncated key
        # is still a key). Lazy scan: it stops at the first END line.
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?s:.*?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|.*)",
        ("-----BEGIN",),
    ),
    TokenFormat(
        "aws-access-key",
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    TokenFormat(
        "github-token",
        _START + r"(?:gh[pousr]_[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{30,}+)" + _END,
        ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
    ),
    # GitLab: personal, deploy, runner, pipeline trigger, CI job, feed, incoming mail, OAuth
    # application, service account, feature flag and agent tokens; newer ones carry a
    # routing suffix (".01.xxxx").
    TokenFormat(
        "gitlab-token",
        _URLSAFE_START
        + r"gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|ffct|agent|wt)-[A-Za-z0-9_-]{20,}+"
        r"(?:\.[A-Za-z0-9_-]++){0,3}+",
        (
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glcbt-",
            "glft-",
            "glimt-",
            "gloas-",
            "glsoat-",
            "glffct-",
            "glagent-",
            "glwt-",
        ),
    ),
    TokenFormat("anthropic-key", _URLSAFE_START + r"sk-ant-[A-Za-z0-9_-]{20,}+", ("sk-ant-",)),
    TokenFormat(
        # A kebab-case word after "sk-" is not a key: require a digit, as every real key has.
        "openai-key",
        _URLSAFE_START + r"sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*+[0-9])[A-Za-z0-9_-]{20,}+",
        ("sk-",),
    ),
    TokenFormat(
        "slack-token",
        _START + r"(?:xox[abposr]-[A-Za-z0-9-]{10,}+|xapp-[0-9]-[A-Za-z0-9-]{10,}+)",
        ("xox", "xapp-"),
    ),
    TokenFormat("google-api-key", _START + r"AIza[A-Za-z0-9_-]{35}" + _URLSAFE_END, ("AIza",)),
    # Google OAuth 2.0: refresh tokens "1//0..." and access tokens "ya29....".
    TokenFormat(
        "google-oauth-token",
        r"(?<![A-Za-z0-9_/])(?:1//0[A-Za-z0-9_-]{30,}+|ya29\.[A-Za-z0-9_-]{30,}+)",
        ("1//0", "ya29."),
    ),
    # Stripe secret and restricted keys (test keys still open an account) and webhook
    # signing secrets.
    TokenFormat(
        "stripe-key",
        _START + r"(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}+|whsec_[A-Za-z0-9]{24,}+)" + _END,
        ("sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"),
    ),
    TokenFormat(
        "jwt",
        _URLSAFE_START + r"eyJ[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]{5,}+\.[A-Za-z0-9_-]*+",
        ("eyJ",),
    ),
    # Hugging Face user access tokens (hf_ + 34 letters) and organisation API tokens.
    TokenFormat(
        "huggingface-token",
        _START + r"(?:hf_|api_org_)[A-Za-z0-9]{30,}+" + _END,
        ("hf_", "api_org_"),
    ),
    TokenFormat("npm-token", _START + r"npm_[A-Za-z0-9]{36}" + _END, ("npm_",)),
    # PyPI API tokens are macaroons: "pypi-" + base64url starting "AgEIcHlwaS5vcmc" (the
    # index) or "AgENdGVzdC5weXBpLm9yZw" (its test index). No look-behind: "-ppypi-..." passes
    # one as -p.
    TokenFormat("pypi-token", r"pypi-Ag[A-Za-z0-9_-]{50,}+", ("pypi-Ag",)),
    TokenFormat(
        "sendgrid-key",
        _URLSAFE_START + r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}" + _URLSAFE_END,
        ("SG.",),
    ),
    # Mailgun's original API keys: "key-" + 32 hex digits.
    TokenFormat("mailgun-key", _URLSAFE_START + r"key-[0-9a-f]{32}(?![A-Za-z0-9])", ("key-",)),
    TokenFormat(
        "digitalocean-token",
        _START + r"do[por]_v1_[a-f0-9]{64}(?![A-Za-z0-9])",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
    ),
    # HashiCorp Vault service, batch and recovery tokens (1.10+).
    TokenFormat(
        "vault-token",
        r"(?<![A-Za-z0-9_.-])hv[sbr]\.[A-Za-z0-9_-]{24,}+",
        ("hvs.", "hvb.", "hvr."),
    ),
    TokenFormat(
        "linear-key",
        _START + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}(?![A-Za-z0-9])",
        ("lin_api_", "lin_oauth_"),
    ),
    # Grafana service account tokens, and Grafana Cloud access policy tokens.
    TokenFormat(
        "grafana-token",
        _START + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}+={0,2}+)",
        ("glsa_", "glc_"),
    ),
    # New Relic user API keys, insights insert keys and admin keys.
    TokenFormat(
        "newrelic-key",
        _URLSAFE_START
        + r"(?:NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32}|NRAA-[a-f0-9]{27})(?![A-Za-z0-9])",
        ("NRAK-", "NRII-", "NRAA-"),
    ),
    TokenFormat(
        "postman-key",
        _URLSAFE_START + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])",
        ("PMAK-",),
    ),
    # Atlassian API tokens (Jira, Confluence, Bitbucket): "ATATT3" + ~180 characters.
    TokenFormat(
        "atlassian-token",
        _URLSAFE_START + r"AT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}+",
        ("ATATT3", "ATCTT3"),
    ),
    # Square production access tokens ("EAAA" + 60) and OAuth access and application secrets.
    TokenFormat(
        "square-token",
        _URLSAFE_START
        + r"(?:EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})"
        + _URLSAFE_END,
        ("EAAA", "sq0atp-", "sq0csp-"),
    ),
    # age X25519 identities: Bech32, upper case, 58 characters after the "1" separator.
    TokenFormat(
        "age-key",
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        ("AGE-SECRET-KEY-1",),
    ),
    # Discord bot tokens: base64 of the bot's numeric id (so "M", "N" or "O" first), a dot,
    # 6 characters of timestamp, a dot, 27 or more of HMAC. There is no literal start, so the
    # distinctive middle is searched for; the token starts 23 to 27 characters before it.
    TokenFormat(
        "discord-token",
        _URLSAFE_START
        + r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"
        + _URLSAFE_END,
        (),
        scan=r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
        scan_min_length=59,
    ),
    TokenFormat(
        "shopify-token",
        _START + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9])",
        ("shpat_", "shpss_", "shpca_", "shppa_"),
    ),
    TokenFormat(
        "doppler-token",
        r"(?<![A-Za-z0-9_.])dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}(?![A-Za-z0-9])",
        ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
    ),
    TokenFormat(
        "databricks-token", _START + r"dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])", ("dapi",)
    ),
    TokenFormat("pulumi-token", _START + r"pul-[a-f0-9]{40}(?![A-Za-z0-9])", ("pul-",)),
    TokenFormat(
        "sentry-token",
        _START + r"sntry[us]_[A-Za-z0-9+/=_-]{40,}+",
        ("sntrys_", "sntryu_"),
    ),
    TokenFormat("groq-key", _START + r"gsk_[A-Za-z0-9]{52}" + _END, ("gsk_",)),
    TokenFormat("replicate-token", _START + r"r8_[A-Za-z0-9]{37}" + _END, ("r8_",)),
    # Notion integration secrets: "ntn_" (2024 on) or "secret_" + 43 characters.
    TokenFormat(
        "notion-token",
        _START + r"(?:ntn_[A-Za-z0-9]{40,}+|secret_[A-Za-z0-9]{43})" + _END,
        ("ntn_", "secret_"),
    ),
    TokenFormat("figma-token", _START + r"figd_[A-Za-z0-9_-]{40,}+", ("figd_",)),
)
"""Every credential format recognised by its value, in priority order."""
