"""docs/reproductions.md: its generated tables are the output of committed results files, and
``bench/reproduce.py --quick`` regenerates a paper's section."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import reproduce  # noqa: E402

NUMBER = re.compile(r"(?<![\w./])[+-]?\d[\d,]*(?:\.\d+)?(?![\d/])")
"""A number as the tables print it (not part of a word such as Leduc5 or of a fraction)."""


def _numbers(text: str) -> list[str]:
    text = re.sub(r"`[^`]*`", " ", text)  # file names in backticks are not numbers
    return [n.replace(",", "").lstrip("+") for n in NUMBER.findall(text)]


def _found(token: str, pool: list[float]) -> bool:
    """Whether ``token`` is one of ``pool`` at the precision it is printed with."""
    value = float(token)
    digits = len(token.split(".")[1]) if "." in token else 0
    return any(abs(round(v, digits) - value) < 1e-9 for v in pool)


def _pool(path: Path) -> list[float]:
    """Every number in a results file (code fences and backticks included: some files print
    their tables in fences)."""
    return [float(n.replace(",", "").lstrip("+")) for n in NUMBER.findall(path.read_text())]


def _rows(block: str) -> list[list[str]]:
    rows = []
    for line in block.splitlines():
        if line.startswith("| ") and not line.startswith("| claim"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append(cells)
    return rows


@pytest.mark.parametrize("paper", reproduce.PAPERS)
def test_every_number_in_the_ours_column_is_in_the_file_it_names(paper: str) -> None:
    block = reproduce.generated_block(reproduce.DOC.read_text(), paper)
    rows = _rows(block)
    assert rows, f"{paper}: no table between the markers"
    for claim, _, ours, _ in rows:
        files = re.findall(r"`([^`]+)`", ours)
        tokens = _numbers(ours)
        if not tokens:
            continue
        assert files, f"{paper}, {claim!r}: numbers without a results file"
        paths = [ROOT / f for f in files]
        assert all(p.exists() for p in paths), f"{paper}: {files} not committed"
        pool = [v for p in paths if p.is_file() for v in _pool(p)]
        missing = [t for t in tokens if not _found(t, pool)]
        assert not missing, f"{paper}, {claim!r}: {missing} not in {files}"


@pytest.mark.parametrize("paper", reproduce.PAPERS)
def test_the_numbers_and_tables_regenerate_from_the_committed_results(paper: str) -> None:
    summary = reproduce.paper_summary(paper, reproduce.RESULTS)
    committed = reproduce.numbers_path(reproduce.RESULTS, paper)
    assert reproduce.numbers_text(summary) == committed.read_text(), (
        f"{committed} is stale: run python bench/reproduce.py --paper {paper} --render-only")
    block = reproduce.generated_block(reproduce.DOC.read_text(), paper)
    figures = re.findall(r"!\[([^\]]*)\]\(img/reproductions/([^)]+)\)", block)
    body = reproduce.section(paper, summary, reproduce.rel(committed, reproduce.RESULTS),
                             [(name, alt) for alt, name in figures], "img/reproductions/")
    assert body == block
    for _, name in figures:
        assert (reproduce.IMG / name).exists()


def test_the_summary_reads_the_committed_vcfr_cells() -> None:
    summary = json.loads(reproduce.numbers_path(reproduce.RESULTS, "vcfr").read_text())
    leduc5 = summary["fixed"]["leduc5"]
    assert leduc5["naive-cfr"]["envs"] == 5
    assert leduc5["naive-cfr"]["ratio_final"] == "1.10"
    assert leduc5["psrlcfr"]["ratio_half"] == "1.53"


def _kuhn_record(exploitability: list[list[float]], gap: list[list[float]]) -> dict:
    return {"points": [25, 50], "traversals_per_unit": 2000, "seeds": [0, 1, 2],
            "exploitability": exploitability, "abs_exact_gap": gap}


def test_deep_cfr_parts_hold_where_the_differences_hold_0_or_stay_within_1pc() -> None:
    a = _kuhn_record([[0.02, 0.010], [0.03, 0.012], [0.025, 0.011]],
                     [[0.001, 0.001], [0.002, 0.001], [0.003, 0.002]])
    same = reproduce.deep_cfr_comparison(a, a)
    assert [p["traversals"] for p in same["points"]] == [50_000, 100_000]
    assert same["verdict"] == "reproduced"
    far = _kuhn_record([[0.20, 0.10], [0.21, 0.11], [0.22, 0.12]],
                       [[0.001, 0.001], [0.002, 0.001], [0.003, 0.002]])
    apart = reproduce.deep_cfr_comparison(far, a)
    assert apart["points"][0]["exploitability"]["equivalent"] is False
    assert apart["points"][0]["abs_exact_gap"]["equivalent"] is True
    assert apart["verdict"] == "reproduced in part"  # the value gaps agree, not the rest
    worse = _kuhn_record([[0.20, 0.10], [0.21, 0.11], [0.22, 0.12]],
                         [[0.101, 0.101], [0.102, 0.101], [0.103, 0.102]])
    assert reproduce.deep_cfr_comparison(worse, a)["verdict"] == "not reproduced"


def test_vcfr_cells_leave_out_the_cells_still_running(tmp_path: Path) -> None:
    folder = tmp_path / "leduc5" / "mccfr-os-unknown"
    folder.mkdir(parents=True)
    for name in ("env0.json", "env10.json", "env2.json", "env3.partial.json"):
        (folder / name).write_text(json.dumps({"name": name}))
    cells = reproduce._vcfr_cells(tmp_path, "leduc5", "mccfr-os-unknown")
    assert [c["name"] for c in cells] == ["env0.json", "env2.json", "env10.json"]


def test_a_paper_without_markers_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no markers for bufp"):
        reproduce.replace_block("# nothing here\n", "bufp", "body")


@pytest.mark.slow
@pytest.mark.parametrize("paper", reproduce.PAPERS)
def test_quick_regenerates_the_section_outside_the_checkout(paper: str, tmp_path: Path) -> None:
    before = reproduce.DOC.read_text()
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "reproduce.py"), "--paper", paper, "--quick",
         "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
        env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
             "MKL_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert reproduce.DOC.read_text() == before
    block = reproduce.generated_block((tmp_path / "reproductions.md").read_text(), paper)
    assert block.startswith("| claim (section) | paper | ours | verdict |")
    assert (tmp_path / "results" / "reproductions" / f"{paper}.json").exists()
    assert "results/reproductions" in block
    for name in re.findall(r"\]\(img/reproductions/([^)]+)\)", block):
        assert (tmp_path / "img" / "reproductions" / name).exists()


SECTIONS = {"VCFR": "vcfr", "NFSP-PER and NFSP-PLT": "nfsp", "BUFP": "bufp",
            "Deep GXFP": "deep-gxfp"}
"""The report's paper sections (their ``## `` headings) and the paper each one is."""

REFERENCE = re.compile(
    r"\b(?:Secs?|Tables?|Figs?|Algorithm|[Ll]ines?|arXiv|doi|commit)\.?\s+[\w.]+"
    r"(?:\s*(?:-|,|and)\s*[\w.]+)*"
    r"|\b(?:Leduc|leduc)\s*\(?\d\)?|\b\d+-NH\b|\b[A-Z]+_\d+\b|UCT\(\d+,\s*[\d.]+\)"
    r"|\b(?:NeurIPS|ICML|AAAI|IJCAI|ICLR|Electronics|manuscript|April)\s+[\d()]+(?:[:.][\d()]+)*"
    r"|(?<=, )(?:19|20)\d\d(?=[).,])|\b95%\s+(?:interval|t interval|band)s?"
)
"""Places, names, citations and section numbers that are not measured numbers: Sec. 5.3,
Tables 3-4, Fig. 4b, lines 232 and 235, Leduc(5), 6-NH, UCT_3000, NeurIPS 2016, ", 2023)"."""


def _paragraph_units(text: str) -> list[tuple[str, str, str]]:
    """(paper, heading, text) for each hand-written part of each paper's section: the text
    before its first ``###`` (without the citation paragraph and the generated block) and each
    ``###`` subsection; code blocks dropped (commands are not claims)."""
    units = []
    for chunk in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = chunk.partition("\n")
        paper = SECTIONS.get(title.strip())
        if paper is None:
            continue
        begin, end = reproduce.begin_marker(paper), reproduce.end_marker(paper)
        before, _, rest = body.partition(begin)
        _, _, after = rest.partition(end)
        before = before.strip().split("\n\n", 1)[1] if "\n\n" in before.strip() else ""
        body = re.sub(r"```.*?```", " ", before + "\n" + after, flags=re.S)
        pieces = re.split(r"^### ", body, flags=re.M)
        units.append((paper, "(protocol)", pieces[0]))
        for piece in pieces[1:]:
            heading, _, rest = piece.partition("\n")
            units.append((paper, heading.strip(), rest))
    return units


def _files_pool(unit: str) -> list[float]:
    pool: list[float] = []
    for name in re.findall(r"`([^`\s]+)`", unit):
        path = ROOT / name
        if path.is_file():
            pool += _pool(path)
        elif path.is_dir():
            for file in [path / "summary.md", *sorted(path.glob("*.json"))]:
                if file.is_file():
                    pool += _pool(file)
    return pool


def test_every_number_in_the_paragraphs_is_in_a_named_file_or_the_paper() -> None:
    text = reproduce.DOC.read_text()
    units = _paragraph_units(text)
    assert {u[0] for u in units} == set(reproduce.PAPERS)
    for paper, heading, unit in units:
        own = [float(n) for n in _numbers(reproduce.generated_block(text, paper))]
        own += reproduce.PAPER_NUMBERS[paper]
        pool = own + _files_pool(unit)
        cleaned = REFERENCE.sub(" ", unit)
        tokens = [t for t in _numbers(cleaned) if "." in t or abs(float(t)) >= 20]
        missing = [t for t in tokens if not _found(t, pool)]
        assert not missing, f"{paper}, {heading!r}: {missing} in no named file nor the paper"


def test_every_verdict_is_one_of_the_defined_words() -> None:
    text = reproduce.DOC.read_text()
    table = text.split("## How to read the verdicts", 1)[1].split("\n\n", 2)[2]
    words = re.findall(r"^\| \*\*(.+?)\*\* \|", table, re.M)
    exact = [w for w in words if not w.endswith(" (...)")]
    qualified = [w.removesuffix(" (...)") for w in words if w.endswith(" (...)")]
    assert "reproduced" in exact and "not measured" in exact and qualified
    for paper in reproduce.PAPERS:
        for claim, _, _, verdict in _rows(reproduce.generated_block(text, paper)):
            word = verdict.strip("*")
            ok = word in exact or any(
                word.startswith(w + " (") and word.endswith(")") for w in exact + qualified)
            assert ok, f"{paper}, {claim!r}: verdict {word!r} is not one of {words}"


def test_provenance_reads_what_each_source_recorded_and_counts_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "results"
    (root / "runs").mkdir(parents=True)
    (root / "runs" / "a.json").write_text(json.dumps(
        {"code_version": "abc1234", "machine": "AMD EPYC, 2 cores, load average 3.1"}))
    (root / "runs" / "b.json").write_text(json.dumps({"machine": "vm (2 cores)"}))
    (root / "table.md").write_text(
        "Code def5678; Python 3.11.7, numpy 2.4.6, numba 0.68.1; AMD EPYC, 2 cores.\n")
    (root / "old.md").write_text("no record\n")
    records = reproduce.provenance(root, ["results/runs", "results/table.md", "results/old.md"])
    assert records["results/runs"] == {"code_version": ["abc1234"], "libraries": [],
                                       "machine": ["AMD EPYC, 2 cores", "vm (2 cores)"]}
    assert records["results/table.md"] == {
        "code_version": ["def5678"],
        "libraries": ["Python 3.11.7, numpy 2.4.6, numba 0.68.1"],
        "machine": ["AMD EPYC, 2 cores"]}
    line = reproduce.provenance_line(records, "numbers.json")
    assert "recorded in 2, the library versions in 1 and the machine in 2" in line
    assert "git log --diff-filter=A" in line
