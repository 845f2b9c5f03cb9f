"""The derivation rules: which handler parses and applies each event type.

Each handler first parses the event into a typed value (pure; any JSON shape is tolerated,
and this is the one step where a malformed payload can be caught and counted), then applies
it to the store. The rules and their eviction tiers are documented in ``docs/rules.md``
and listed in :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, NamedTuple, TypeVar

from deriver.calls import parse_tool_event
from deriver.messages import (
    Checkpoint,
    MessageRules,
    Transition,
    parse_checkpoint,
    parse_message,
    parse_terminal,
    parse_transition,
)
from deriver.recording import Failures
from deriver.stands import Stands
from deriver.store import Item, MemoryStore
from deriver.todo_lists import TodoLists
from deriver.tool_calls import ToolCallRules
from session_memory.core.events import TranscriptEvent
from session_memory.core.memory import SectionName

__all__ = ["RULES", "Handler", "Rule", "Rules"]

T = TypeVar("T")


class Rule(NamedTuple):
    """One derivation rule as documented in ``docs/rules.md``; ``kind`` names its items."""

    kind: str
    pattern: str
    effect: str
    section: str
    tier: str


RULES: Final[tuple[Rule, ...]] = (
    Rule("goal", "user message, not synthetic, not a short answer, nor the user's report of a "
         "step done for the agent (I restarted the server, try again)",
         "becomes the current goal (one the user queued while the agent worked, handed to its "
         "running turn, metadata.queued, joins the request at work instead, what it states of "
         "how to work a user_choice; "
         "cut to its cap: head and tail, and between them the last "
         "two lines of a pasted log that report an error); the previous goal becomes an "
         "earlier goal (quoted, head and tail kept: 280 characters; the newest three say "
         "more in the room left as the memory is read), unless it was a run the "
         "user pasted (it opens with the prompt line: the run is in the checks) or only "
         "questions answered with no file changed (what's the diff between a and b?, did you "
         "push?; not can you…?, nor one that proposes: should, rather, I think…?) or only "
         "asked to commit, push or open a pull request and got it (commit and push please) "
         "or was one bare word (update, 检查: what it asks is in the agent's message before "
         "it); the same "
         "request sent again (after an interrupt) stays the one goal",
         "current_goal, earlier_goals", "earlier_goals"),
    Rule("user_reported", "user message of more than three lines (a pasted log or output, "
         "not a check's run) with a line that reports an error (error:, failed:, "
         "TypeError:, FAILED), not a line of code (a format string's %v or {name}, a call "
         "given a string, a call such as log.Fatal(err), an arrow function, Python's except "
         "Exception:, a docstring's ValueError: If …), nor a line of a document (a Markdown "
         "heading, table row or list item), nor a sentence that describes an error (a hard "
         "error (all orders blocked); not failed (exit 1)), nor a message's template (failed: ...)",
         "failed attempt: its last such line that says why (not only that a process exited "
         "with a code: error: script \"release\" exited with code 1), reported by the user; "
         "resolved when the agent closes a turn that changed files after it",
         "failed_attempts", "open_failures, then resolved_failures"),
    Rule("root_goal", "the session's first goal, replaced by a later one",
         "earlier goal pinned: evicted only with the todos", "earlier_goals", "todo_items"),
    Rule("final_unverified", "assistant message with metadata.action_type final_unverified",
         "verification warning", "verification_status", "verification_status"),
    Rule("decision", "assistant metadata.decision, or an assistant line starting 'Decision:'",
         "key decision; the same decision again counts up", "key_decisions", "key_decisions"),
    Rule("compaction", "state_transition with reason context_compacted",
         "key decision", "key_decisions", "key_decisions"),
    Rule("checkpoint", "checkpoint event",
         "key decision: the checkpoint and its summary's request (or first line); a client's "
         "compaction leaves out the request when the memory has the session's own requests "
         "(it paraphrases them); a context_compacted transition naming it adds the messages "
         "compacted",
         "key_decisions", "key_decisions"),
    Rule("summary_todo", "checkpoint summary section of pending tasks",
         "todo, quoted; gone when a run completes, a todo list or checkpoint follows",
         "todo_items", "earlier_goals"),
    Rule("summary_resume", "checkpoint summary section of current work or next step",
         "todo 'resume:', quoted; gone when a run completes, a todo list, a checkpoint or the "
         "user's next request follows",
         "todo_items", "earlier_goals"),
    Rule("summary_lesson", "checkpoint summary section of errors, fixes or learnings",
         "failed attempt 'summary:', quoted, left out when the entry says it was fixed "
         "(past, nothing open: fixed by, or a Fix: of its own) or needed no change; "
         "replaced by a later checkpoint",
         "failed_attempts", "earlier_goals"),
    Rule("summary_decision", "checkpoint summary section of decisions or problem solving",
         "key decision, quoted; replaced by a later checkpoint", "key_decisions",
         "earlier_goals"),
    Rule("summary_goal", "checkpoint summary section of the user's messages",
         "earlier goal, quoted, unless a goal in the memory states it (in full or its head; "
         "case, quotes, white space, full-width forms and the memory's ⏎ aside)",
         "earlier_goals", "earlier_goals"),
    Rule("summary_done", "checkpoint summary section of completed milestones",
         "completed work, quoted; replaced by a later checkpoint", "completed_work",
         "completed_work"),
    Rule("plan", "ExitPlanMode (plan-mode exit) completed", "key decision: the approved plan",
         "key_decisions", "key_decisions"),
    Rule("answer", "AskUserQuestion completed (not an answer typed into its form that the "
         "user's next message says again: that is the request), a user's short answer a "
         "newer turn replaced, or "
         "a plan-mode exit or an AskUserQuestion form the user rejected saying how to go on "
         "(the outcome rejected, with their words: The user wants to clarify; no failed "
         "attempt)",
         "key decision: the user's answer, with the question or plan it answers (an approval "
         "to go "
         "on, \"yes\", acted on, or the user's report of a step done, is none: the work shows it)",
         "key_decisions", "key_decisions"),
    Rule("user_choice", "user request after the first, of at most 600 characters, with a "
         "clause that sets how the work is done: a name (call it, just say), a constraint "
         "(we don't, we should not, don't push, stop calling; 不要, 必须, 即可, しないで), a "
         "convention (we use, we're …ing, use uv as the package manager, keep examples "
         "limited) or a preference (instead of saying, use … "
         "instead, is also fine, only when); "
         "not a clause that asks, nor one that reports (returns 404 instead of 200, we're "
         "getting a 500), nor a line pasted from a program's output (Warning: …, [tag] …)",
         "key decision, once a newer request replaces it as the current goal (which "
         "shows it until then): the user said those clauses (240 characters)", "key_decisions",
         "key_decisions"),
    Rule("closing", "the agent's closing message (final action) replaced by a newer one",
         "key decision when it states a choice or its reason (not one it only leaves to the "
         "user: a question, until you tell me which you prefer, nor a message that ends asking "
         "the user to choose, which or this or that or what would you like to do, its "
         "recommendation a proposal; a status "
         "report is superseded by the newer message; one the user answers is still failing, "
         "or did not work, or not what I wanted, is not kept, and one the agent's next "
         "words own was wrong, I was "
         "sloppy, my mistake, I conflated, good catch, or that its fix changed nothing, Still "
         "empty., leaves, and a plan (<proposed_plan>) a "
         "revised one replaces): quoted without its sentences on where the work stands in "
         "git (The changes remain uncommitted, Worktree is clean, No code changes were made, "
         "Nothing committed yet) "
         "nor the question it ends "
         "with (the user's next words answered it), head and tail kept, up to 400 "
         "characters (half the budget at a small one); evicted first, with completed work; as "
         "the memory is read, the newest three say more (up to 2,000 characters) in the room "
         "the rest leaves, never evicting anything",
         "key_decisions", "completed_work"),
    Rule("reply", "the agent's first message after a user's request that ends by asking a "
         "question and asks no other (a list of questions to look into is a request), said "
         "while working (a question typed into the running turn too, unless the reply ends "
         "on a next step); its first line says no next action (let me, I'm checking)",
         "key decision: the question and the reply, quoted up to 240 "
         "characters; evicted first, with completed work", "key_decisions", "completed_work"),
    Rule("stop_hook", "state_transition with reason stop_hook_blocking",
         "verification: completion blocked; cleared when a run completes",
         "verification_status", "verification_status"),
    Rule("model_recovery", "state_transition with reason model_recovery_failed",
         "failed attempt; history once the user moves on to a new request", "failed_attempts",
         "open_failures, then resolved_failures"),
    Rule("replan", "tool call requested, not yet started", "todo: replan it",
         "todo_items", "todo_items"),
    Rule("uncertain", "tool call started, never completed or failed, nor done over: open at "
         "a compaction, then made again (the same argument: an edit of the same file that "
         "worked, which needed its text as it then was; or a run of the same check as wide); "
         "an edit, nor settled by a later git status of a clean tree (nothing of it pending)",
         "todo marked uncertain; Edit, Write, Bash, Task... not safe to replay; a commit names "
         "its subject",
         "todo_items", "todo_items"),
    Rule("tool_failed", "tool call failed, exited non-zero, or returned an error text",
         "failed attempt with tool, key argument, the line that says why (its paths named from "
         "the project's directory; not a tool's notice, up to its line saying how to turn it "
         "off; a named exception, SyntaxError: Unexpected token, over the lines above it; "
         "PowerShell's error record by its message, else its CategoryInfo; not a "
         "heading framed by marks, >>>> ERROR REPORT <<<<: an indented traceback's exception "
         "line under it); the same failure again "
         "counts up, and calls of the same tool failing the same way in a row are one line "
         "naming their arguments (three edits the user rejected at once); a later success "
         "that did all the failed command did, on the same targets, and ran each program "
         "it fed text to (cat log | python3 -c: not cat log | grep) (but those its error "
         "refused by value, Invalid --since value: '1d', 'security' not found of --label "
         "security,p0: the same command with the value changed or left out; those refused "
         "for how they were called, Unknown JSON field: the same "
         "program's next success, whatever it was asked) (git: in the same repository) "
         "(asking it for --help runs nothing; a line that sets its own exit, cmd; true, "
         "cmd || :, cmd; echo $?, is no success of its commands nor a check's verdict; nor is "
         "a piped line whose output says the failure's error again: git stash | head), or "
         "successes that did each of "
         "its commands in lines of their own (install && doctor: the install again, then "
         "the doctor; nothing then named as worked instead), resolves it (a line so joined "
         "once each of them worked, naming those still open until then): kept as a lesson "
         "when spelled otherwise (what worked instead is named "
         "and kept as long as the decisions; not a success that found the work already "
         "done: was already merged) or when a file changed before it worked, gone "
         "when the same command line simply worked again, or from the directory it needed "
         "(cd web && npm install, then npm install) or called as it takes (a usage slip, "
         "whatever changed before it worked, a check's too: unknown flag, unexpected "
         "argument, PowerShell's A parameter cannot be found that matches parameter name; "
         "input its schema refused: Invalid input: expected number; a "
         "name it does not know, of any tool: Unknown skill), and when the "
         "same edit, sent again as it was, worked; what the "
         "agent says next, before "
         "acting again, is kept with it as its reading (160 characters; not an announcement "
         "of its next "
         "step, nor words after a longer look around, over 32 events on; after calls asked "
         "for together, with the last of them that failed, else with "
         "none), and a failure it says it expected (the red step of test-first: failed "
         "for the expected reason) is none; a read that found nothing (no match, a "
         "pipeline's last filter too, no such file, a directory where a file was looked "
         "for: EISDIR) is no failure and no work "
         "(but a program not there, command not found, spawn rg ENOENT, "
         "is), nor is an edit of a text into itself, of every occurrence too (No changes to "
         "make), nor a malformed call whose tool's name is no name (nothing ran); a command "
         "line "
         "whose git add failed for a path that did not match or a "
         "locked index is gone once a commit works (one refused for paths git ignores is "
         "resolved then, a lesson); once the user moves on to a new "
         "request, a failure still open is history (evicted with the resolved ones)",
         "failed_attempts",
         "open_failures, then resolved_failures or key_decisions"),
    Rule("stale_edit", "an edit that did not apply because the file was not as the agent "
         "last saw it: the outcome stale, as the adapters read their clients' words (not read "
         "yet, changed since read, the text to replace not found or found twice, a patch's "
         "context not found; docs/formats.md)",
         "failed attempt, open until an edit of the same file works or the file is read (the "
         "agent sees it as it is; also by a shell line that shows it: sed -n '1,140p' a.go); "
         "then gone (nothing learned)",
         "failed_attempts", "open_failures"),
    Rule("merge_conflict", "git merge, pull, rebase, cherry-pick, revert, stash or am failed "
         "on conflicts (or on a commit it could not apply)",
         "failed attempt, open until a commit or the command's --continue finishes it; then "
         "gone (the conflicts were resolved)",
         "failed_attempts", "open_failures, then resolved_failures"),
    Rule("check", "shell command that runs tests, builds, linters, syntax checks (bash -n, "
         "node --check, python -m py_compile) or a project gate "
         "(make check, just test, npm run check-types, pre-commit run...), or a project's own "
         "script named for what it verifies (node scripts/validate.js, ./scripts/check.sh)",
         "one verification line per check: passed or failed in the runner's own summary "
         "words (a project's script with the command its runner echoed: bun run lint, runs "
         "biome check), with the failing tests, else its first error when that is not its "
         "summary (mypy's a.py:3: error: …, eslint's under its file's line: a.ts 3:7 error …; "
         "not a script runner's exited with code 1) (a test run that found no test, No tests "
         "found, is a warning, and so is any run whose paths matched no code: go build ./... "
         "saying matched no packages; a run piped into head or tail, its summary cut off, "
         "failed when its output "
         "lists errors (tsc | head; markdownlint-cli2 | tail: a.md:3:81 error MD013; a "
         "program's panic is no error of a build or a linter's) "
         "or says its program is not there (nx lint | tail: "
         "command not found: nx, the line it quotes); a run whose problems a filter counts, "
         "grep -c error or grep error | wc -l, failed when it counted any and passed when "
         "none (the count its summary: 25 problem lines counted), and one whose "
         "filter shows lines around its matches, grep -B1 no-unused-vars, or kept nothing "
         "of a filter for no problem words (cargo test | grep 'test result'), with neither "
         "verdict; piped or with "
         "no exit code, failed when its build tool "
         "or script runner ends saying so: BUILD FAILED, Failed to compile, npm ERR! code "
         "ELIFECYCLE, make: *** Error 1; a linter, type checker or build with no exit code and no "
         "output passed: they are silent when all is well; one whose output ends asking, "
         "Continue? Yes / No, Ok to proceed? (y), stopped before it checked: no verdict); a "
         "broader later run settles "
         "narrower ones (a run that selects tests is narrower: pytest -k x, xcodebuild test "
         "-only-testing:AppTests/A; so is a run whose "
         "output grep filtered for a name, with "
         "no summary shown: tsc | grep ezoic, or dropped lines of names: | grep -v "
         "retriever; one without the build tags or features that add tests is no broader: "
         "go test ./... after go test -tags=integration; one in a subdirectory covers the "
         "same paths named from the session's: cd pkg && go test ./x after go test ./pkg/x), "
         "a pass of a run naming each test a failed run "
         "listed as failing (go test -run TestA, pytest a.py::test_b) the failed run, and a "
         "project's gate that passes (mise run lint, make test) the FAILED lines of the kinds "
         "of check it runs (another gate's of those kinds that never ran, its program not "
         "there: nx lint api, command not found: nx), and their passes stale since (a "
         "narrower gate's of those kinds too: mise run rust:lint, then mise run lint); "
         "stale after a later edit of a file "
         "checks read (not docs, a linter's or formatter's only under the paths it was given: "
         "dart analyze lib/ not after test/a.dart; not a file "
         "outside the session's working directory; for a check run in a directory beside the "
         "project, cd ../lib && go test, only a file in that directory); a check run in another "
         "checkout beside the project (cd ../lib && pytest) is that checkout's, shown with its "
         "cd, and neither settles nor replaces the project's runs, while one that goes into "
         "the session's own directory (cd /w/p && ruff check) runs there, as with no cd; a "
         "formatter run to write "
         "(cargo fmt, ruff format .) after its check failed (cargo fmt --check) fixed it: the "
         "FAILED lines go, their failures with no lesson, and so do a linter's, formatter's "
         "or type checker's that a pre-commit hook passed since (git commit's output: "
         "ruff....Passed); a run the user pasted into a message (its prompt line, then its "
         "output) counts, run by the "
         "user, when it is the last command pasted (after it, a script's next step, $ bun "
         "publish, says what follows is not its output); the agent's first sentence after a "
         "pass, or after a run whose outcome its output did not tell (not one that printed "
         "nothing: its words rest on no output), when it reports a "
         "result and no next step (All 527 tests pass), is kept with it",
         "verification_status", "verification_status"),
    Rule("ci_checks", "gh pr checks or gh run watch completed or failed, listing the CI "
         "checks of a pull request or a run (a project gate, run by the forge)",
         "a check's verification line, by the states it lists (not gh's exit: 8 while some are "
         "pending): failed naming the failing checks (a failed attempt too), a warning while any "
         "is pending, passed when all pass; a refresh of the table (--watch) says each check's "
         "later state, a loop over several pull requests lists all of theirs; a push since "
         "(git push) makes the verdict, and the failures it listed, an earlier push's (of an "
         "earlier push: …; pushed again since) until CI's checks are listed again",
         "verification_status", "verification_status"),
    Rule("check_failed", "a check that failed",
         "failed attempt with the line that says why (its paths named from the project's "
         "directory; a Rust panic's message under its panicked at line, said of its test, "
         "as is the error of the one test pytest names failing; not a tool's notice), "
         "one per cause, and the agent's reading; a "
         "later pass of the same or a broader check (also through a tool manager: mise exec, "
         "pnpm exec, fnm exec, corepack pnpm, volta run; in a container: docker compose "
         "exec; with secrets loaded: op run --), or of a run naming each test it "
         "listed as failing, marks it resolved, and so does a later failing run of the same "
         "check whose whole output (not a window of it: | grep, | tail -N of N lines; nor "
         "one that says it was truncated) no longer says it; "
         "a linter's or formatter's finding so fixed goes (it is in the code now), and so "
         "does a compiler's that a name is declared and never used (TS6133); a linter that "
         "was not there (make: ruff: No such file or directory), or crashed (TypeError: "
         "scopeManager.addGlobals is not a function), found nothing: that stays, a lesson",
         "failed_attempts", "resolved_failures"),
    Rule("todo", "TodoWrite / todo_write / update_plan completed",
         "the todo list is replaced by the latest list, verbatim, in order (the steps the "
         "budget left out go with the old list; as its result "
         "says it stands when it does: TaskList); its open steps go "
         "when the agent worked on past its last update, ended the turn and the user asks for "
         "something new; a step that verifies the work (Verify…, Run the tests), in progress, "
         "goes when the agent ends its turn after checks passed since it began (the last too), "
         "and one that names its checks by their programs (Run ruff, mypy, and pytest; not one "
         "that also commits or pushes) as soon as each of them passed since it began",
         "todo_items", "todo_items"),
    Rule("plan_step", "an approved plan (plan-mode exit) or a request that carries a plan, "
         "with a Verification / Testing / Test plan section listing steps (in the plan's "
         "language too: 验证方式, 検証, 검증, Проверка, Vérification)",
         "one todo of the steps not seen taken (two shown, one more for each 240 tokens of "
         "the budget): a step naming a command goes "
         "when a command line runs it or a broader run of its check (any check of its kind "
         "for npm run build (or equivalent)); one naming checks "
         "without a command (all tests pass) when any check runs; one done by hand (manual, "
         "logs, a browser) or a load on the system (a load or stress test) stays; the next "
         "approved plan replaces them",
         "todo_items", "todo_items"),
    Rule("tracker_todo", "task-tracker shell command (beads bd update/close/list/ready/show/"
         "create; an issue opened or closed with gh or glab issue create/close, each create "
         "numbered by the URL it printed in turn) completed, or a "
         "note written into a todo directory (.planning/todos/pending/, todos/; "
         "done once moved into done/, gone once a read or edit finds it missing)",
         "one todo per issue the session claimed, created or closed, and the "
         "open issues listed under them; a listing alone is a read; closed issues become "
         "completed work", "todo_items", "todo_items"),
    Rule("todo_done", "a todo item that became completed", "completed work: one line for "
         "the steps of the lists, how many and the last four (a tracker's closed issue: a "
         "line of its own); a step the agent later says is wrong, closing a turn (the README "
         "instructions I just wrote are wrong: most of the step's words in that line) is no "
         "longer done",
         "completed_work", "completed_work"),
    Rule("unchecked_step", "a todo step that verifies (Test…, Verify…, Run the tests…) "
         "became completed while no test, build or linter ran since it was planned",
         "verification: a warning that it was marked done with no check run",
         "verification_status", "verification_status"),
    Rule("task", "Task (sub-agent) completed", "nothing (what it found or made is in what "
         "the agent did and said next: a list of tasks done tells no one where the work "
         "stands); a report that opens by saying the task was not done (I could not finish, "
         "BLOCKED, Unable to) is a failed attempt in its words",
         "failed_attempts", "open_failures, then resolved_failures"),
    Rule("commit", "`git commit` completed, its output naming the commit (or its command "
         "line: -m, a heredoc's first line, when its output names none: -q, a proxy's "
         "filtered output); not run in a scratch directory (cd /tmp/x && git commit; S=/tmp/x "
         "then cd $S; S=$(mktemp -d) then cd $S)",
         "completed work, once followed by another commit (until then the last one is "
         "where the session stands, pushed or not): hash and subject (the subject alone for a "
         "quiet one; each of a line's commits in turn), an amended one (--amend) in place of "
         "the last, pushed or not; those "
         "not pushed by subject alone once rebased or filtered (git pull --rebase, git "
         "filter-repo: their hashes are gone), or by the head a push says it pushed when "
         "that is not the commit made (b3e6ad6e..e921c91e HEAD -> main); the files changed "
         "before it are "
         "committed (also when nothing names the commit); one in another repository beside "
         "the project (cd ../other, a Codex workdir) says where, and that repository has its "
         "own last commit, pushes and branch",
         "completed_work", "completed_work"),
    Rule("push", "`git push` completed after a commit (not one that names only notes or tags: "
         "git push origin refs/notes/ai, git push --tags)",
         "the lines of the commits before the last say committed and pushed; the last one "
         "is where the session stands (pushed) until another commit is made",
         "completed_work", "completed_work"),
    Rule("deployed", "a shell command that deploys the work (vercel deploy / --prod, "
         "netlify, fly, wrangler or firebase deploy, gcloud … deploy, railway up, terraform "
         "apply, kubectl apply, helm install / upgrade, pulumi up, serverless, cdk or sam "
         "deploy) or releases it to a registry (npm, pnpm, yarn, cargo, uv or poetry publish, "
         "twine upload, gem push) and worked; not a dry run, not one asked for --help",
         "completed work: deployed (or published) with the command; what it shipped need "
         "not be committed", "completed_work", "completed_work"),
    Rule("pull_request", "`gh pr` / `glab mr` `create`, `merge` or `close` completed, or a "
         "forge's tool that creates one (mcp__github__create_pull_request, the GitHub app's "
         "_create_pull_request: its output's URL); the failed attempts to open one (gh pr "
         "create, gh api …/pulls) are settled by it",
         "completed work: the pull request merged or closed (the one named, else the one the "
         "session opened; the open one when a log shows its merge commit, Merge pull request "
         "#7 from o/b); one opened is where the session stands while it is open, and "
         "completed work once another is opened; a merge only scheduled (--auto, a merge "
         "queue) leaves it open; the boxes its description left unchecked (- [ ] in the "
         "--body it was opened with, or last written with gh pr edit, or as gh pr view shows "
         "it) a todo until it is "
         "merged or closed, evicted with the verification",
         "completed_work, todo_items", "completed_work"),
    Rule("merge_method", "`gh pr merge` / `glab mr merge` completed with --squash, --rebase "
         "or --merge", "key decision: the merge method, the project's way of merging "
         "(counted when merged again the same way)", "key_decisions", "key_decisions"),
    Rule("last_message", "the agent's closing message (final action) of the last turn",
         "where the session stands: the message in full (its middle cut to the section's "
         "share, or, when the memory is read, to the room the rest leaves), without the "
         "question it ends with (its awaiting line shows it); a run that completed after it "
         "says so", "where_stands", "never evicted"),
    Rule("previous_message", "the agent's closing message the user's latest request "
         "followed (not once the user added to the request while the agent worked on it)",
         "where the session stands, only as the memory is read and only in the room the rest "
         "leaves (never evicting anything), and when it was kept as a key decision (it states "
         "a choice) in the room that decision's line leaves, shown there instead (a key "
         "decision again once another request follows): what the latest request answers, "
         "head and tail kept (up to 2,000 characters, at least 80), without the question it "
         "ended with and its sentences on where the work stands in git (4 commits on the "
         "branch, not pushed)", "where_stands", "never evicted"),
    Rule("answered", "user message that is a short answer (yes, go ahead, continue, the "
         "second one, 继续...; not one that asks, ending in ?, or names new work: do the "
         "proper fix, nor a polite bid, Please open a PR, to a message that neither asks nor "
         "offers), or opens by picking an option of an agent's message that ends asking "
         "the user to choose (B, nested in the options; I think A. ensure we log), or takes "
         "up in its words the one step the message offered (post it, to Say the word and "
         "I'll post it; not an offer of this or that)",
         "where the session stands: the answer with the question of "
         "the message it answers, its offer, or the option it picks by number, letter or "
         "ordinal (1, option B, the second one, 0 of a menu numbered from 0; a list's line "
         "or a table's row), or those a reply of a few lines names, one per line, by the "
         "words each starts with; never a new "
         "goal",
         "where_stands", "never evicted"),
    Rule("awaiting", "the agent's last message ends by asking something",
         "where the session stands: the question awaiting the user's answer, whole (up to "
         "240 characters; a longer one stays the end of the message)",
         "where_stands", "never evicted"),
    Rule("plan_pending", "plan-mode exit left open, or refused (failed, or rejected by the user)",
         "where the session stands: the plan awaiting approval, rejected by the user or not "
         "approved (failed)",
         "where_stands", "never evicted"),
    Rule("announced", "the agent's last message ends by announcing a step (Let me..., I'll...)",
         "where the session stands: unfinished, the step announced", "where_stands",
         "never evicted"),
    Rule("team_message", "SendMessage completed (Claude Code's agent teams): a message to "
         "another agent of the team, or an answer to the lead's shutdown request; gone once a "
         "new request starts",
         "where the session stands: the last such message, to whom and its words (head and "
         "tail kept, 240 characters); an answer to a shutdown request by the client's own "
         "confirmation (Shutdown approved. … is now exiting.)", "where_stands",
         "never evicted"),
    Rule("mid_turn", "the transcript ends inside a turn: the agent spoke while working after "
         "its last closing message, and no run completed, nor todo list was written or plan "
         "proposed since",
         "where the session stands: unfinished, the agent's last words (head and tail kept, "
         "240 characters)", "where_stands", "never evicted"),
    Rule("uncommitted", "Edit, Write, apply_patch and equivalents completed, no commit since "
         "that took them (a commit takes every change; after git add of some paths, those "
         "and the paths it names: files git's status listed that it left are still changed; "
         "git add -A, ., a pattern or -p, commit -a, and git mv, rm, merge (one stopped on "
         "conflicts too), pull, rebase or stash stage all), "
         "and their changes not thrown away (git restore a.py, git checkout -- a.py, git reset "
         "--hard; not git restore --staged, nor another version checked out) nor put aside "
         "(git stash, git stash push a.py; not git stash -p), and each "
         "listed by git's last status of the whole tree (git status, --short, --porcelain; "
         "none when it says nothing to commit, working tree clean; not one seen through a "
         "filter or a window it fills, git status -s | head -5), whoever committed the "
         "others; and the other files that status lists when run in the session's directory "
         "(by a sub-agent, say), not those its first status listed (one that lists nothing "
         "is a look too), nor those any status "
         "listed before it edited a file, ran a sub-agent or a command that does more than "
         "read (changed before the session, or by another agent beside it: an approval "
         "reviewer's look at the reviewed agent's tree); a short status is read first on "
         "its command line (git status -s; git diff --stat), or after others from its branch "
         "line (git fetch && git status -sb), else its first file's (git branch "
         "--show-current && git status -s; not a line of git diff --stat), a long one after "
         "others when last on its line "
         "(git commit -m x && git status: what the commit left); not a file a later read or "
         "edit found missing "
         "(File does not exist: removed, or reset away) or the session removed (rm), nor one "
         "whose edits since it was last "
         "unchanged were each undone by an edit that put back what it replaced (a version "
         "bumped, then set back)",
         "where the session stands: files changed (and not committed once the session used "
         "git; no commit of them seen when it works on a git branch, payload git_branch, and "
         "ran no git: the user may commit beside it), not those in a temporary or "
         "configuration directory (/tmp, ~/.claude) outside the session's known working "
         "directory, nor those git said its ignore files exclude (git add's ignored paths, "
         "git check-ignore; until git add -f adds them), each named from the session's first "
         "directory wherever its shell moved since (cd frontend); passing checks become stale",
         "where_stands", "never evicted"),
    Rule("unpushed", "a commit not pushed since (nor taken off by git reset HEAD~N / <last>^, "
         "or by git reset --soft <commit> of one made before it: all, when it names none of "
         "the session's; a status on the same line is read after the reset)",
         "where the session stands: the commit "
         "and its branch, and how many commits before it are not pushed either (a push takes "
         "them all, and so does a git status of its branch up to date with its upstream; one "
         "ahead by N commits leaves the last N), and the upstream's commits the branch has not "
         "(behind, or diverged: its push is refused) until a pull, merge, rebase or reset",
         "where_stands", "never evicted"),
    Rule("pushed", "a commit pushed, and no commit made since (nor the pushed one taken off "
         "by an amend or a reset)",
         "where the session stands: the commit and its branch, committed and pushed; a line "
         "of completed work once another commit is made or the session's pull request merged",
         "where_stands", "never evicted"),
    Rule("branch", "git checkout -b / -B, git switch -c / -C completed, and no move to another "
         "branch since (git switch x, git checkout of the branch it was made from, git or gh "
         "saying it switched or, git status, On branch main, or gh pr merge --delete-branch)",
         "where the session stands: the branch and the one it was made from, unless the line "
         "of a commit not pushed names it", "where_stands", "never evicted"),
    Rule("ci_unseen", "git push completed after the session looked at CI (gh pr checks, gh "
         "run view / watch / list, glab ci, glab pipeline) or changed its configuration "
         "(.github/workflows/*.yml, .gitlab-ci.yml, ...), and no look since",
         "where the session stands: the commit pushed (its hash), its CI checks not seen; "
         "said on the line of the commit pushed (`pushed`) when one shows it",
         "where_stands", "never evicted"),
    Rule("pull_open", "a pull request opened and not merged or closed since (a merge only "
         "scheduled, gh pr merge --auto, leaves it open)",
         "where the session stands: its URL", "where_stands", "never evicted"),
    Rule("ending", "terminal event of a run that did not complete; gone once a new turn starts",
         "where the session stands: how the last run ended, in words", "where_stands",
         "never evicted"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Handler(Generic[T]):
    """How one event type changes the memory: ``parse`` (pure, may fail), then ``apply``."""

    parse: Callable[[TranscriptEvent], T | None]
    apply: Callable[[T], bool]


class Rules:
    """Event handlers over a :class:`MemoryStore`."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.failures = Failures(store)
        self.stands = Stands(store)
        self.todos = TodoLists(store)
        self.tools = ToolCallRules(store, self.failures, self.stands, self.todos)
        self.messages = MessageRules(
            store, self.failures, self.stands, self.todos, self.tools.checks
        )
        messages = self.messages
        self.handlers: dict[str, Handler[Any]] = {
            "message": Handler(parse_message, messages.apply_message),
            "state_transition": Handler(parse_transition, self._transition),
            "tool_lifecycle": Handler(parse_tool_event, self.tools.apply),
            "checkpoint": Handler(parse_checkpoint, self._checkpoint),
            "terminal": Handler(parse_terminal, messages.apply_terminal),
        }

    def _transition(self, transition: Transition) -> bool:
        if transition.reason == "context_compacted":
            self.tools.compacted()
        return self.messages.apply_transition(transition)

    def _checkpoint(self, checkpoint: Checkpoint) -> bool:
        self.tools.compacted()
        return self.messages.apply_checkpoint(checkpoint)

    # -- views and snapshots --------------------------------------------------------------

    def ordered(self, section: SectionName) -> list[Item]:
        """A section's items in display order: the todo list first, in its own order."""
        items = self.store.items_of(section)
        if section == "todo_items":
            return [i for i in items if i.kind == "todo"] + [i for i in items if i.kind != "todo"]
        return items

    def to_state(self) -> dict[str, Any]:
        return {
            **self.tools.to_state(),
            "failures": self.failures.to_state(),
            "stands": self.stands.to_state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.tools.load_state(state)
        self.failures.load_state(state["failures"])
        self.stands.load_state(state["stands"])
