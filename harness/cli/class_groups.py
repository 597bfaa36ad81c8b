"""The page's divergence classes, grouped (``report html``; docs/reports.md, "The page"): every class once, in
groups of the classes that share op, cause, step and implementations (they differ by detail), a row each with
its count of classes (how many new) and the witness of its smallest class (``Witness.size``, the order the
merge keeps), linked to that class's card. Groups are folded: opening one shows its classes' cards.

A group's anchor (``group-`` and a digest of op, cause, step and the implementations as a set) is the same in
every run that has it; a class's anchor opens its group and its card; the filters (implementation, status,
cause, search) stay in the URL as before (page.js) and count each group's classes that match.

From divergences.LAZY_FROM classes on, a group's cards are data (``#group-cards``, by group anchor) the script
puts in when the group is opened, and each card's details are data too (``#card-bodies``), so that a page of
thousands of classes is a few dozen rows to lay out. The filters read ``#class-index`` (each class's anchor,
implementations, status, cause and search text, by group) whether or not a group's cards are in.

The cards, the class table and the reports' lines are harness/cli/reports/divergences.py's; this module only
groups them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.classes import history
from harness.classes.kinds import Kind
from harness.classes.report import classes as report_classes
from harness.classes.report import expected_problems
from harness.cli import views
from harness.cli.html import PageContext, Source, attrs, badge, code, data_block, escape, section, select_html
from harness.cli.reports import divergences
from harness.cli.reports.divergences import Seen, class_attrs, class_html, search_text, since_html


@dataclass(frozen=True)
class GroupKey:
    """What the classes of a group share: op, cause, step and the implementations (as a set: two runs may open
    them in another order)."""

    op: str
    cause: str
    step: str | None
    impls: tuple[str, ...]

    @classmethod
    def of(cls, seen: Seen) -> GroupKey:
        record = seen.record
        return cls(record.op, record.cause, record.step, tuple(sorted(record.divergent)))

    @property
    def anchor(self) -> str:
        """The group's name, the same in every run that has it (a digest, never its place on the page)."""
        text = json.dumps([self.op, self.cause, self.step, list(self.impls)], ensure_ascii=True)
        return "group-" + hashlib.sha256(text.encode("ascii")).hexdigest()[:12]


@dataclass(frozen=True)
class Group:
    key: GroupKey
    members: tuple[tuple[int, Seen], ...]  # (the class's number on the page, the class), in the page's order

    @property
    def new(self) -> int:
        return sum(seen.record.new for _, seen in self.members)

    @property
    def smallest(self) -> Seen:
        """The class whose witness is the smallest (Witness.size; the first of equal ones)."""
        return min((seen for _, seen in self.members), key=lambda seen: seen.record.witness.size)


def groups_of(every: Sequence[Seen]) -> list[Group]:
    """The classes in groups (``GroupKey``): groups holding a new class first, then the larger ones, then in
    the order their first class comes; each group's classes in the page's order (numbered from 1)."""
    found: dict[GroupKey, list[tuple[int, Seen]]] = {}
    for number, seen in enumerate(every, 1):
        found.setdefault(GroupKey.of(seen), []).append((number, seen))
    groups = [Group(key, tuple(members)) for key, members in found.items()]
    order = {group.key: place for place, group in enumerate(groups)}
    return sorted(groups, key=lambda g: (g.new == 0, -len(g.members), order[g.key]))


def group_head(group: Group) -> str:
    """A group's row: op, cause, step, implementations, its count of classes (how many new) and the witness of
    its smallest class, a link to that class's card."""
    key, smallest = group.key, group.smallest
    count = len(group.members)
    new = badge(f"{group.new} new", "new") if group.new else ""
    shown = views.witness(smallest.record.witness.args, 80)
    return (f"<summary><a class='group-link' href='#{key.anchor}' title='a link to this group'>&#182;</a> "
            f"{code(key.op)} <span class='cause'>{escape(key.cause)}</span> at <span class='step'>"
            f"{escape(key.step or '- (counterfactuals)')}</span> <span class='group-impls'>"
            f"{escape(', '.join(key.impls))}</span> "
            f"<span{attrs(class_='group-count', data_count=count, data_new=group.new)}>"
            f"{count} class{'' if count == 1 else 'es'}</span> {new}"
            f"<span class='group-witness'>smallest witness: <a href='#{smallest.anchor}'>"
            f"<code class='value'>{escape(shown)}</code></a></span></summary>")


def _reports_lines(reports: Sequence[Source]) -> str:
    lines = []
    for source in reports:
        document = source.document
        records = report_classes(document)
        new = sum(record.new for record in records)
        evidence = views.divergence_evidence(document)
        checked = views.amount(evidence) if evidence else "no examples counted (a parity report: its tests are)"
        summary = (f"{len(records)} class(es), {new} new; {checked} in {document.get('seconds', 0)} s"
                   + (f"; seed {document['seed']}" if document.get("seed") is not None else ""))
        problems = expected_problems(document)
        problem_html = ("<ul class='problems'>" + "".join(f"<li>{escape(p)}</li>" for p in problems) + "</ul>"
                        if problems else "")
        lines.append(f"<li{attrs(class_='report', data_report=source.label)}><b>{escape(source.label)}</b> "
                     f"({code(str(source.path))}): {escape(summary)}{problem_html}</li>")
    return f"<ul class='reports'>{''.join(lines)}</ul>"


def _class_table(every: Sequence[Seen]) -> str:
    """Every class, a row each (divergences.class_rows), as the ungrouped page had it, folded; from
    divergences.LAZY_FROM classes on, built when asked for."""
    rows = "".join(
        f"<tr{class_attrs(seen.record, 'class-row')}><td><a href='#{seen.anchor}'>{n}</a></td>"
        + "".join(f"<td>{escape(cell)}</td>" for cell in row[1:7])
        + f"<td>{badge(row[7], seen.record.status)}</td>"
        f"<td{attrs(title=seen.seen_in)}>{len(seen.reports)}</td></tr>"
        for n, (row, seen) in enumerate(zip(divergences.class_rows([s.record for s in every]), every, strict=True), 1))
    head = "".join(f"<th>{escape(h)}</th>" for h in (*divergences.CLASS_HEADERS, "reports"))
    table = f"<table class='classes-table'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    if len(every) >= divergences.LAZY_FROM:  # parsed, not laid out, until asked for: a long table's layout is slow
        return (f"<p><button type='button' id='show-class-table'>show the table of the {len(every):,} classes"
                f"</button></p><template id='class-table'>{table}</template>")
    return f"<details class='class-table'><summary>every class in one table</summary>{table}</details>"


def classes_section(sources: Sequence[Source], oracle: str, notes: dict[str, dict[str, Any]],
                    past: history.Past | None = None) -> str:
    """The reports that hold classes (a line each), the filters, then the groups (``groups_of``), folded, each
    holding its classes' cards (divergences.class_html), and the table of every class."""
    reports = [s for s in sources if s.kind == Kind.DIVERGENCES]
    if not reports:
        return section("classes", "Divergence classes", "<p class='none'>No divergence reports among the reports "
                       "(<code>nox -s parity</code>, <code>nox -s fuzz</code>, <code>nox -s sweep</code> write "
                       "them).</p>")
    every = divergences.seen_classes(sources)
    if not every:
        return section("classes", "Divergence classes", f"<p>0 class(es) in {len(reports)} report(s).</p>"
                       + _reports_lines(reports) + "<p class='ok'>No divergence.</p>")
    lazy = len(every) >= divergences.LAZY_FROM
    bodies: dict[str, str] | None = {} if lazy else None
    since = None
    if past is not None and past.runs:  # this run's classes against the last one's, as report diff pairs them
        since = history.since_last(history.classes_of(past.runs[-1][1]),
                                   [history.Summarised.of(seen.record) for seen in every])
    groups = groups_of(every)
    rows, cards, index = [], {}, {}
    for group in groups:
        html = "".join(class_html(seen, number, oracle, notes, bodies, since_html(seen, past, since))
                       for number, seen in group.members)
        anchor = group.key.anchor
        index[anchor] = [[seen.anchor, " ".join(seen.record.divergent), seen.record.status, seen.record.cause,
                          search_text(seen.record)] for _, seen in group.members]
        if lazy:
            cards[anchor] = html
            html = "<div class='group-body' data-lazy='1'>(its classes come with the page's script)</div>"
        else:
            html = f"<div class='group-body'>{html}</div>"
        rows.append(f"<details{attrs(id=anchor, class_='group', data_op=group.key.op, data_cause=group.key.cause, data_step=group.key.step or '', data_impls=' '.join(group.key.impls))}>"  # noqa: E501
                    f"{group_head(group)}{html}</details>")
    shown = [seen.record for seen in every]
    filters = ("<form class='filters' id='class-filters' onsubmit='return false'>"
               + select_html("class-impl", "implementation", sorted({i for r in shown for i in r.divergent}))
               + select_html("class-status", "status", sorted({r.status for r in shown}))
               + select_html("class-cause", "cause", sorted({r.cause for r in shown}))
               + "<label>search <input id='class-text' type='search' placeholder='U+001C, a name, a witness'>"
               "</label><span id='class-count' aria-live='polite'></span></form>")
    new = sum(record.new for record in shown)
    intro = (f"<p>{len(every):,} class(es) in {len(reports)} report(s), {new:,} new, in {len(groups):,} group(s) "
             "of the classes that share op, cause, step and implementations (a class is known by those and its "
             "detail; its anchor, and its group's, is the same in every run that sees it). Open a group to see "
             "its classes; a group's row counts them and shows the witness of its smallest."
             + (f" With {divergences.LAZY_FROM} classes or more, a group's cards and a card's details come with "
                "the page's script when it is opened." if lazy else "") + "</p>" + _reports_lines(reports))
    data = data_block("class-index", index)
    if lazy:
        data += data_block("group-cards", cards) + data_block("card-bodies", bodies)
    body = (intro + filters + f"<div id='class-groups' data-groups='{len(groups)}'>{''.join(rows)}</div>"
            + _class_table(every) + data)
    return section("classes", "Divergence classes", body)


def render(page: PageContext) -> str:
    """The page's section of divergence classes, grouped: the divergences report kind's section
    (divergences.KIND; divergences.classes_section is this one)."""
    return classes_section(page.sources, page.oracle, page.entries, page.past)
