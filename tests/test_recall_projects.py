"""Project scope (addendum rows 2-3): an LRU of 4 keys, remote URLs normalised, and the project of
a folder inferred from real git repositories -- worktrees and sub-folders are the same project."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from reverie.errors import UserError
from reverie.recall.projects import ProjectScope, folder_scope, infer_project, normalise_key, normalise_remote
from tests.recall_helpers import scripted, system_of, write

git = shutil.which("git")
needs_git = pytest.mark.skipif(git is None, reason="git is not installed")


def run(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@x", "HOME": str(cwd), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def repo(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    run("init", "-q", cwd=app)
    run("commit", "-q", "--allow-empty", "-m", "first", cwd=app)
    return app


def test_lru_of_four_most_recent_first():
    s = ProjectScope()
    for k in ("a", "b", "c", "d", "e"):
        s.activate(k)
    assert s.keys == ["e", "d", "c", "b"]
    s.activate("c")
    assert s.keys == ["c", "e", "d", "b"]
    assert s.allows([]) and s.allows(["c", "E"]) and not s.allows(["c", "a"])
    assert ProjectScope(["x", "y"]).keys == ["x", "y"]


@pytest.mark.parametrize("url,key", [
    ("git@github.com:Acme/App.git", "github.com/acme/app"),
    ("https://user:token@GitHub.com/acme/app.git/", "github.com/acme/app"),
    ("ssh://git@github.com:22/acme/app.git", "github.com/acme/app"),
    ("git@gitlab.example.org:group/sub/proj.git", "gitlab.example.org/group/sub/proj"),
    ("file:///srv/git/app.git", "path:/srv/git/app.git"),
])
def test_remote_urls_normalise(url, key):
    assert normalise_remote(url) == key


def test_bad_keys_are_refused_with_one_line():
    for bad in ("", "a;b", "x<y>", "k" * 400):
        with pytest.raises(UserError):
            normalise_key(bad)
    assert normalise_key("  my   notes ") == "my notes"


@needs_git
def test_worktrees_and_subfolders_are_one_project(repo, tmp_path):
    run("remote", "add", "origin", "git@github.com:Acme/App.git", cwd=repo)
    (repo / "src" / "deep").mkdir(parents=True)
    run("worktree", "add", "-q", str(tmp_path / "app-feature"), cwd=repo)
    keys = {str(p): infer_project(p).key for p in (repo, repo / "src" / "deep", tmp_path / "app-feature")}
    assert set(keys.values()) == {"github.com/acme/app"}, keys
    assert infer_project(tmp_path) is None


@needs_git
def test_without_a_remote_the_main_worktree_root_is_the_key(repo, tmp_path):
    (repo / "sub").mkdir()
    run("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    assert infer_project(repo / "sub").key == f"path:{repo.resolve()}"
    assert infer_project(tmp_path / "wt").key == f"path:{repo.resolve()}"


@needs_git
def test_a_configured_map_wins_over_git(repo):
    (repo / "docs").mkdir()
    inferred = infer_project(repo / "docs", {str(repo): "acme-app", str(repo / "docs"): "acme-docs"})
    assert inferred.key == "acme-docs" and "memory.projects.map" in inferred.how


@needs_git
def test_a_chat_in_the_repository_gets_its_entries(fake_memory, repo):
    run("remote", "add", "origin", "https://github.com/acme/app", cwd=repo)
    write(fake_memory, "MEMORY.md", "# Memory\n\n- Deploys go through staging first. <!-- trigger: deploy --> "
                                    "<!-- project: github.com/acme/app -->\n")
    fake_memory.sync()
    model = scripted(turn=[{"reply": "ok"}, {"reply": "ok"}])
    rt = fake_memory.runtime(model, cwd=repo / ".")
    assert rt.projects.keys == ["github.com/acme/app"] and rt.projects.inferred
    rt.send("let us deploy")
    assert "Deploys go through staging" in system_of(model)
    rt.close()
    fake_memory.settings.memory.projects.infer = False  # inference can be switched off
    assert folder_scope(fake_memory.settings, folder=repo).keys == []


def test_memory_search_tool_takes_projects_and_the_memory_scope(fake_memory):
    write(fake_memory, "MEMORY.md", "# Memory\n\n- Deploys go through staging first. "
                                    "<!-- project: github.com/acme/app -->\n")
    # less relevant (a boost lifts only a result near the best), and in another file (two entries of
    # one window would be one passage with one score)
    write(fake_memory, "memory/ops.md", "# Ops\n\n- The staging server is slow on Mondays.\n")
    fake_memory.sync()
    search = next(t for t in fake_memory.tools() if t.name == "memory_search")

    def score(out):
        return next(r["score"] for r in out["results"] if r["path"] == "MEMORY.md")

    plain = score(search.call({"query": "deploys staging"}))
    given = score(search.call({"query": "deploys staging", "projects": ["github.com/acme/app"]}))
    other = score(search.call({"query": "deploys staging", "projects": ["github.com/acme/web"]}))
    assert other < plain < given
    fake_memory.projects = ProjectScope(["github.com/acme/app"])  # what reverie mcp sets from its folder
    assert score(search.call({"query": "deploys staging"})) == pytest.approx(given)


def test_a_bad_project_key_in_chat_is_a_reply_not_the_end_of_the_chat(fake_memory):
    rt = fake_memory.runtime(scripted(turn=[{"reply": "still here"}]))
    assert rt.send("/project a;b").reply.startswith("Not changed: project key 'a;b'")
    assert rt.send("/project").reply.startswith("Active projects: no active project")
    assert rt.send("hello").reply == "still here"
    rt.send("/project github.com/acme/app")
    assert rt.send("/project clear").reply.startswith("No active project") and rt.projects.keys == []
    rt.close()
