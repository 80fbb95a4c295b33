"""Secrets are never automatic (issue 29 item 3): never staged or promoted by Dreaming, never
injected by a lane, never sent to a reranker or a remote model; the owner's search finds them,
marked sensitive, and status lists them. Real SQLite, real Dreaming runs, the offline model."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from reverie.models.base import ChatMessage, ChatModel, ChatResponse
from reverie.rerank.base import Reranker
from reverie.trust.secrets import LINE_MARKER, PLACEHOLDER
from reverie.trust.shield import is_remote, shield
from tests.dreaming_helpers import OWNER, memory_text, night, open_mem, recall, write
from tests.recall_helpers import scripted, system_of
from tests.recall_helpers import write as write_file

SECRET_LINE = "Remember that the wifi password at the cabin is sunflower99."


def test_dreaming_never_stages_or_promotes_a_secret_and_says_withheld(reverie_home):
    mem = open_mem()
    write(mem, 0, SECRET_LINE)
    write(mem, 0, "I am allergic to peanuts.", minute=5)
    recall(mem, {1: ["wifi password cabin", "peanut allergy"], 2: ["cabin wifi", "allergic to peanuts"],
                 3: ["what is the wifi at the cabin", "food allergy peanuts"], 4: ["cabin password", "can I eat peanuts"]})
    out = mem.dream(now=night(4)).as_dict()
    text = memory_text(mem)
    assert "allergic to peanuts" in text  # the same life promotes an ordinary fact
    assert "sunflower99" not in text
    dreams = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
    assert "sunflower99" not in dreams and "withheld: sensitive" in dreams
    assert "sunflower99" not in str(out)
    assert all("sunflower99" not in s.get("snippet", "") for s in out["phases"]["deep"].get("skipped", []))
    mem.close()


def test_the_heartbeat_review_never_sees_or_proposes_a_secret(reverie_home):
    from reverie.dreaming.heartbeat import review

    mem = open_mem()
    now = datetime(2026, 6, 10, 12, tzinfo=timezone.utc)
    mem.remember("I decided to switch my bank to GLS Bank.", now=now - timedelta(hours=3), provenance=OWNER)
    mem.remember("I decided the door code of the cabin is 4471.", now=now - timedelta(hours=2), provenance=OWNER)
    model = scripted(turn=[{"toolCalls": [{"name": "memory_propose", "arguments": {"entries": [1, 2]}}]},
                           {"afterTools": True, "reply": "ok"}])
    out = review(mem, now=now, model=model)
    assert out["reviewed"] == 1  # the secret line is not listed for the reviewing model
    asked = "\n".join(m["content"] or "" for r in model.requests for m in r["messages"])
    assert "4471" not in asked and "GLS Bank" in asked
    text = memory_text(mem)
    assert "GLS Bank" in text and "4471" not in text
    mem.close()


def test_a_session_message_with_a_secret_never_reaches_the_corpus(reverie_home):
    mem = open_mem()
    rt = mem.runtime("offline", session="main")
    rt.send(SECRET_LINE)
    rt.close()
    out = mem.dream(phase="light", now=datetime.now(timezone.utc)).as_dict()
    corpus = mem.workspace / "memory/.dreams/session-corpus"
    held = "".join(p.read_text(encoding="utf-8") for p in corpus.glob("*.md")) if corpus.exists() else ""
    assert "sunflower99" not in held
    assert out["ingested"]["withheldSensitive"] >= 1
    mem.close()


def test_trigger_recall_and_bootstrap_never_inject_a_secret_and_search_finds_it_marked(fake_memory):
    mem = fake_memory
    write_file(mem, "MEMORY.md", "# Long-Term Memory\n\n- The wifi password at the cabin is sunflower99. "
                                 "<!-- trigger: user, remember, wifi -->\n- I prefer aisle seats.\n")
    mem.sync()
    model = scripted(turn=[{"reply": "ok"}])
    rt = mem.runtime(model)
    rt.send("the user interface of my app is slow, and the wifi too")
    system = system_of(model)
    assert "sunflower99" not in system
    assert LINE_MARKER in system and "I prefer aisle seats." in system  # the rest of MEMORY.md is there
    rt.close()
    hits = mem.search("wifi password cabin")["results"]
    assert hits and hits[0].get("sensitive") is True and "sunflower99" in hits[0]["snippet"]
    plain = mem.search("aisle seats")["results"]
    assert plain and "sensitive" not in plain[0]


def test_startup_notes_withhold_the_secret_line_with_a_marker(fake_memory):
    from tests.recall_helpers import write_trusted

    mem = fake_memory
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    write_trusted(mem, f"memory/{today}.md", f"- Booked the cabin for May.\n- {SECRET_LINE}\n- Bring boots.\n")
    model = scripted(turn=[{"reply": "ok"}])
    rt = mem.runtime(model)
    rt.send("hello")
    system = system_of(model)
    assert "Booked the cabin for May." in system and "Bring boots." in system
    assert "sunflower99" not in system and LINE_MARKER in system
    rt.close()


def test_active_memory_tools_never_hand_a_secret_to_the_recall_model(fake_memory):
    from reverie.recall.active_pass import recall_tools

    mem = fake_memory
    write_file(mem, "MEMORY.md", f"# Long-Term Memory\n\n- {SECRET_LINE}\n")
    mem.sync()
    search, get = recall_tools(mem, projects=[], across_session=None)
    found = search.handler({"query": "wifi password cabin"})
    assert found["results"] and all("sunflower99" not in r["snippet"] for r in found["results"])
    assert any(PLACEHOLDER in r["snippet"] and r.get("sensitive") for r in found["results"])
    assert "sunflower99" not in str(get.handler({"path": "MEMORY.md"}))


def test_status_counts_and_lists_sensitive_lines(fake_memory):
    from reverie.trust.sensitive import sensitive_lines

    mem = fake_memory
    write_file(mem, "MEMORY.md", f"# Long-Term Memory\n\n- {SECRET_LINE}\n- my PIN is 2580\n- I like tea.\n")
    mem.sync()
    st = mem.status()
    assert st["sensitive"]["lines"] == 2 and st["sensitive"]["hint"] == "reverie search --sensitive"
    rows = sensitive_lines(mem.index.conn())
    assert [r["line"] for r in rows] == [3, 4] and rows[0]["kinds"] == ["credential"]


class _Recorder(Reranker):
    provider, model = "recorder", "r"

    def __init__(self):
        self.seen: list[str] = []

    def _score(self, query, documents, *, timeout):
        self.seen += [query, *documents]
        return [(i, 0.5) for i in range(len(documents))]


def test_a_reranker_never_receives_a_secret():
    rr = _Recorder()
    rr.rerank("cabin wifi", [SECRET_LINE, "I like tea."])
    assert not any("sunflower99" in s for s in rr.seen)
    assert rr.seen[1] == f"Remember that the wifi password at the cabin is {PLACEHOLDER}." and rr.seen[2] == "I like tea."


class _Remote(ChatModel):
    provider, model = "acme", "m"
    base_url = "https://api.acme.example/v1"

    def __init__(self):
        self.sent: list[str] = []

    def complete(self, messages, tools=None, *, timeout=None, max_tokens=None):
        self.sent += [m.content for m in messages]
        return ChatResponse(ChatMessage("assistant", "NONE"))


def test_memorys_own_calls_to_a_remote_model_are_masked_and_local_ones_are_not():
    remote = _Remote()
    assert is_remote(remote)
    shield(remote).complete([ChatMessage("user", SECRET_LINE)])
    assert remote.sent == [f"Remember that the wifi password at the cabin is {PLACEHOLDER}."]
    local = _Remote()
    local.base_url = "http://127.0.0.1:11434/v1"
    assert not is_remote(local) and shield(local) is local
    offline = _Remote()
    offline.offline = True  # the built-in model: nothing leaves the machine
    assert shield(offline) is offline


def test_the_flush_masks_secrets_for_a_remote_model(fake_memory, tmp_path):
    from reverie.sessions.flush import run_flush

    remote = _Remote()
    run_flush(remote, [ChatMessage("user", SECRET_LINE), ChatMessage("assistant", "Noted.")], "",
              workspace=fake_memory.workspace, tz=timezone.utc, now=datetime.now(timezone.utc), timeout=5,
              trigger="manual")
    assert remote.sent and not any("sunflower99" in s for s in remote.sent)
    assert any(PLACEHOLDER in s for s in remote.sent)
