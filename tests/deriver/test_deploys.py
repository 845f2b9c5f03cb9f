"""Deploys and releases are completed work: what they shipped may not be in git."""

from __future__ import annotations

import pytest

from deriver.deploys import shipped
from tests.deriver.test_rules import bash, derive, event, texts


@pytest.mark.parametrize(
    ("command", "how"),
    [("npx vercel deploy --prod --yes", "deployed"), ("vercel --prod", "deployed"),
     ("cd infra && terraform apply -auto-approve", "deployed"),
     ("kubectl apply -f k8s/", "deployed"), ("fly deploy", "deployed"),
     ("npx wrangler deploy", "deployed"),
     ("npm publish --access public", "published"), ("uv publish", "published"),
     ("npm publish --dry-run", ""), ("npx vercel deploy --help", ""), ("terraform plan", ""),
     ("vercel env ls", ""), ("npm run build", ""), ("", "")],
)  # fmt: skip
def test_a_command_that_ships_the_work(command: str, how: str) -> None:
    """A deploy to a platform or cluster, or a release to a registry; a dry run, a plan or
    a request for help ships nothing."""
    assert shipped(command) == how


def test_a_deploy_is_completed_work() -> None:
    """A deploy is a milestone of its own, whatever git says of the files it shipped; the
    same deploy again is the same line."""
    memory = derive(
        event("message", role="user", content="deploy the leaderboard", cwd="/home/u/game"),
        *bash("npx vercel deploy --prod --yes", "Production: https://game.vercel.app", "c1"),
        *bash("npx vercel deploy --prod --yes", "Production: https://game.vercel.app", "c2"),
    )
    assert texts(memory.completed_work) == ["deployed with `npx vercel deploy --prod --yes`"]
