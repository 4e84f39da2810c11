"""`manage.py bench`: shows that chapter 1000 costs what chapter 10 costs.

Builds what it measures (deterministic synthetic books in English and Chinese,
and the two corpora imported as manuscripts) in the configured database, prints
tables with median, min and max, and writes the same figures as JSON."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import connection

from memory import bench
from memory.benchmarks_core import bench_vector_search

CORPORA = Path(settings.BASE_DIR).parent / "shared" / "corpora"


class Command(BaseCommand):
    help = "Measure memory size, prompt sizes, query counts and hot-path latencies on 1000-chapter books."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--quick", action="store_true", help="A reduced run in seconds (CI smoke test).")
        parser.add_argument("--json", dest="json_path", default="", help="Also write the figures to this JSON file.")
        parser.add_argument("--repeats", type=int, default=0, help="Repetitions per timing (default 15, quick 3).")
        parser.add_argument("--keep", action="store_true", help="Keep the benchmark novels afterwards.")

    def handle(self, *args: Any, **opts: Any) -> None:
        quick = opts["quick"]
        repeats = opts["repeats"] or (3 if quick else 15)
        chapters = 120 if quick else 1000
        checkpoints = [10, 50, 100, 120] if quick else [10, 100, 500, 1000]
        prompt_at = [20, chapters]
        owner, _ = get_user_model().objects.get_or_create(username="bench")
        out: dict[str, Any] = {
            "machine": _machine(),
            "quick": quick,
            "chapters": chapters,
            "repeats": repeats,
            "books": {},
        }
        created: list[Any] = []
        try:
            for language in ("en", "zh"):
                out["books"][language] = book = self._book(
                    owner=owner,
                    language=language,
                    chapters=chapters,
                    checkpoints=checkpoints,
                    prompt_at=prompt_at,
                    repeats=repeats,
                    created=created,
                )
                self._print_book(language, book)
            out["vector_search"] = [bench_vector_search(n_rows=2000, dim=1536, repeats=repeats * 2, seed=0)]
            if not quick:
                out["vector_search"].append(bench_vector_search(n_rows=20000, dim=1536, repeats=repeats, seed=1))
            self._print_vectors(out["vector_search"])
            out["import"] = []
            for name in ("pride_and_prejudice.en.txt", "sanguo_yanyi.zh.txt"):
                path = CORPORA / name
                if path.exists():
                    out["import"].append(bench.figure_import(owner=owner, path=path, repeats=1 if quick else 3))
            self._print_import(out["import"])
        finally:
            if not opts["keep"]:
                from novels.models import Novel

                Novel.objects.filter(memberships__user=owner).delete()
        if opts["json_path"]:
            Path(opts["json_path"]).parent.mkdir(parents=True, exist_ok=True)
            Path(opts["json_path"]).write_text(json.dumps(out, indent=2, ensure_ascii=False, default=str))
            self.stdout.write(f"\nFigures written to {opts['json_path']}")

    def _book(
        self,
        *,
        owner: Any,
        language: str,
        chapters: int,
        checkpoints: list[int],
        prompt_at: list[int],
        repeats: int,
        created: list[Any],
    ) -> dict[str, Any]:
        from memory.synthetic import synthetic_book_build

        start = time.perf_counter()
        book = synthetic_book_build(
            owner=owner, chapters=chapters, language=language, seed=7, title=f"bench-{language}"
        )
        build_s = time.perf_counter() - start
        created.append(book.novel)
        novel = book.novel
        return {
            "build_seconds": round(build_s, 2),
            "memory_size": bench.figure_memory_size(novel=novel, chapters=checkpoints),
            "prompt_sizes": bench.figure_prompt_sizes(novel=novel, chapters=prompt_at),
            "assembly": bench.figure_assembly(novel=novel, chapters=[10, chapters // 2, chapters], repeats=repeats),
            "retrieval": bench.figure_retrieval(novel=novel, cues=book.cues, repeats=repeats),
            "finalize": bench.figure_finalize(novel=novel, chapter=chapters, cascade=10, repeats=repeats),
        }

    # --- printing -------------------------------------------------------------------------------

    def _table(self, title: str, header: list[str], rows: list[list[Any]]) -> None:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
        self.stdout.write(f"\n{title}")
        self.stdout.write("  ".join(str(h).rjust(w) for h, w in zip(header, widths, strict=False)))
        for row in rows:
            self.stdout.write("  ".join(str(c).rjust(w) for c, w in zip(row, widths, strict=False)))

    def _print_book(self, language: str, book: dict[str, Any]) -> None:
        self.stdout.write(
            f"\n=== {language} synthetic book (built in {book['build_seconds']} s, {connection.vendor}) ==="
        )
        self._table(
            "1. memory block (tokens)",
            ["chapter", "budgeted", "everything", "ratio"],
            [
                [r["chapter"], r["budgeted_tokens"], r["full_tokens"], r["ratio_full_to_budgeted"]]
                for r in book["memory_size"]
            ],
        )
        self._table(
            "2. whole prompt per call (tokens)",
            ["chapter", "draft", "review", "fin.summary", "fin.extract", "total"],
            [
                [r["chapter"], r["draft"], r["review"], r["finalize_summary"], r["finalize_extract"], r["total"]]
                for r in book["prompt_sizes"]
            ],
        )
        self._chart(book["memory_size"])
        a = book["assembly"]
        ratio = round(a[-1]["median_ms"] / max(1e-9, a[0]["median_ms"]), 2)
        plateau = round(a[-1]["median_ms"] / max(1e-9, a[-2]["median_ms"]), 2)
        self._table(
            f"3. context assembly (ratio last/first {ratio}, last/middle {plateau})",
            ["chapter", "queries", "cold ms", "median ms", "min", "max"],
            [[r["chapter"], r["queries"], r["cold_ms"], r["median_ms"], r["min_ms"], r["max_ms"]] for r in a],
        )
        book["assembly_ratio"] = ratio
        book["assembly_ratio_last_to_middle"] = plateau
        r = book["retrieval"]
        self._table(
            "4. retrieval over every passage",
            ["passages", "median ms", "min", "max", "recall (named)", "recall (passage query)"],
            [[r["passages"], r["median_ms"], r["min_ms"], r["max_ms"], r["recall"], r["recall_passage_query"]]],
        )
        f = book["finalize"]
        self._table(
            f"6. finalize at chapter {f['chapter']} (model time excluded)",
            ["what", "median ms", "min", "max"],
            [
                ["write transaction", f["write"]["median_ms"], f["write"]["min_ms"], f["write"]["max_ms"]],
                ["re-finalize", f["refinalize"]["median_ms"], f["refinalize"]["min_ms"], f["refinalize"]["max_ms"]],
                [
                    f"cascade x{f['cascade_chapters']}",
                    f["cascade"]["median_ms"],
                    f["cascade"]["min_ms"],
                    f["cascade"]["max_ms"],
                ],
            ],
        )

    def _chart(self, rows: list[dict[str, Any]], width: int = 60) -> None:
        """Figure 1 as a bar chart: what a budget-less tool sends against our block."""
        top = max(max(r["full_tokens"], r["budgeted_tokens"]) for r in rows) or 1
        self.stdout.write("\n   tokens sent with the draft (# everything in full, = Inkstone's budgeted block)")
        for r in rows:
            full = "#" * max(1, round(width * r["full_tokens"] / top))
            ours = "=" * max(1, round(width * r["budgeted_tokens"] / top))
            self.stdout.write(f"ch {r['chapter']:>5} {full} {r['full_tokens']:,}")
            self.stdout.write(f"{'':>8} {ours} {r['budgeted_tokens']:,}")

    def _print_vectors(self, rows: list[dict[str, Any]]) -> None:
        self._table(
            "5. vector search (ms per query)",
            ["rows", "dim", "numpy median", "python median", "ratio", "same rows+order"],
            [
                [
                    r["n_rows"],
                    r["dim"],
                    r["numpy"]["median_ms"],
                    r["python"]["median_ms"],
                    round(r["python"]["median_ms"] / max(1e-9, r["numpy"]["median_ms"]), 1),
                    r["same_rows_and_order"],
                ]
                for r in rows
            ],
        )

    def _print_import(self, rows: list[dict[str, Any]]) -> None:
        self._table(
            "7. import (model time excluded)",
            ["file", "chapters", "split ms", "index ms", "store ms", "chapters/s"],
            [
                [
                    r["file"],
                    r["chapters"],
                    r["split"]["median_ms"],
                    r["index"]["median_ms"],
                    r["store_ms"],
                    r["chapters_per_second"],
                ]
                for r in rows
            ],
        )


def _machine() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "database": connection.vendor,
        "database_version": _db_version(),
    }


def _db_version() -> str:
    try:
        with connection.cursor() as c:
            c.execute("SELECT version()" if connection.vendor == "postgresql" else "SELECT sqlite_version()")
            return str(c.fetchone()[0])[:80]
    except Exception:
        return "unknown"
