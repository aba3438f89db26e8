"""The page: one static HTML file per cell. Markup is rendered here, every string from the records escaped
(records hold third-party agent text); the page's only script is the hand-written one below (no framework, nothing
fetched), allowed by its hash in the page's Content-Security-Policy, so even an unescaped ``<script>`` would not
run."""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Any

from evalkit.records import AppliedEffect, ConversationRecord, ToolCall, Turn
from evalkit.view.audio import AudioBudget, lane_source
from evalkit.view.cells import CellView

# The lanes: what the agent heard from the caller (the condition's effects applied) and what the agent said.
LANES = (("caller", "user_heard", "caller (as the agent heard it)"), ("agent", "assistant", "agent"))
HEADLINE = ("task_completion_pass_at_1", "task_completion_mean", "user_wer_mean", "key_entity_accuracy_mean",
            "latency_response_ms_p50", "latency_response_ms_p95", "conversations")  # fmt: skip

SCRIPT = """
(() => {
  const fmt = s => { s = Math.max(0, s || 0); const m = Math.floor(s / 60), r = s - 60 * m;
    return m + ':' + (r < 10 ? '0' : '') + r.toFixed(1); };
  for (const p of document.querySelectorAll('.player')) {
    const lanes = [...p.querySelectorAll('audio')], dur = parseFloat(p.dataset.dur) || 1;
    const head = p.querySelector('.playhead'), clock = p.querySelector('.clock'), btn = p.querySelector('.play');
    const at = () => lanes.length ? lanes[0].currentTime : 0;
    const show = () => { const t = at(), x = 1000 * t / dur; head.setAttribute('x1', x); head.setAttribute('x2', x);
      clock.textContent = fmt(t) + ' / ' + fmt(dur); };
    const seek = t => { for (const a of lanes) { try { a.currentTime = t; } catch (e) {} } show(); };
    p.seek = seek;
    btn.addEventListener('click', () => {
      if (!lanes.length) return;
      if (lanes[0].paused) { const t = at(); for (const a of lanes) { a.currentTime = t; a.play().catch(() => {}); }
        btn.textContent = 'Pause'; }
      else { for (const a of lanes) a.pause(); btn.textContent = 'Play'; }
    });
    if (lanes.length) { lanes[0].addEventListener('timeupdate', show);
      lanes[0].addEventListener('ended', () => { for (const a of lanes) a.pause(); btn.textContent = 'Play'; }); }
    for (const box of p.querySelectorAll('input[data-lane]')) box.addEventListener('change', () => {
      for (const a of lanes) if (a.dataset.lane === box.dataset.lane) a.muted = !box.checked; });
    p.querySelector('svg').addEventListener('click', e => {
      const r = e.currentTarget.getBoundingClientRect(); seek(dur * (e.clientX - r.left) / r.width); });
  }
  document.addEventListener('click', e => {
    const b = e.target.closest('[data-seek]'); if (!b) return;
    const p = b.closest('.conv').querySelector('.player'); if (p && p.seek) p.seek(parseFloat(b.dataset.seek));
  });
})();
"""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:2em;border-top:2px solid #ccc;padding-top:.5em}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:1.5em}
.conv{border:1px solid #ddd;border-radius:6px;padding:.6em;min-width:0}
.conv h3{margin:.2em 0;font-size:1em}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:2px 4px;text-align:left;
vertical-align:top}
.turns td{font-size:13px}.user td:first-child{border-left:4px solid #2a7ab8}
.assistant td:first-child{border-left:4px solid #c2571a}
.differs{background:#fff2cc}.eff{color:#7a4b00;font-size:12px}.tool{background:#f4f4fb;margin:2px 0;padding:2px}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font-size:12px}
svg.lanes{width:100%;height:70px;cursor:pointer;background:#fafafa;border:1px solid #eee}
.bad{color:#b00}.good{color:#070}.note{color:#666;font-size:12px}button{margin-right:.5em}
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _json(value: Any) -> str:
    return esc(json.dumps(value, indent=1, ensure_ascii=False, default=str))


def _effect(effect: AppliedEffect) -> str:
    keys = ("environment", "snr_db_measured", "loss_rate", "codec", "kind", "onset_ms")
    shown = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in effect.params.items() if k in keys)  # fmt: skip
    span = f"{effect.start_ms / 1000:.1f}–{effect.end_ms / 1000:.1f} s"
    return (f'<div class="eff" data-effect="{esc(effect.type)}">⚡ {esc(effect.type)} ({esc(effect.participant)}, '
            f"{span}){': ' + esc(shown) if shown else ''}</div>")  # fmt: skip


def _tool(call: ToolCall) -> str:
    status = '<span class="good">ok</span>' if call.ok else '<span class="bad">failed</span>'
    return (f'<div class="tool" data-tool="{esc(call.name)}">🔧 <b>{esc(call.name)}</b> {status} at '
            f"{call.t_ms / 1000:.1f} s<details><summary>arguments / result</summary><pre>{_json(call.arguments)}"
            f"</pre><pre>{_json(call.result)}</pre></details></div>")  # fmt: skip


def _turn_row(turn: Turn, previous: Turn | None) -> str:
    said, heard = turn.intended_text, turn.heard_text
    differs = heard is not None and heard.strip().lower() != said.strip().lower()
    timing = ""
    if turn.role == "assistant":
        parts = [f"response {turn.start_ms - previous.end_ms:.0f} ms"] if previous is not None else []
        parts += [f"{k} {v:.0f} ms" for k, v in (("stt", turn.stt_ms), ("llm", turn.llm_ms), ("tts", turn.tts_ms))
                  if v is not None]  # fmt: skip
        timing = f'<div class="note">{esc(", ".join(parts))}</div>' if parts else ""
    heard_cell = "" if heard is None else esc(heard)
    extras = "".join(_effect(e) for e in turn.effects) + "".join(_tool(c) for c in turn.tool_calls)
    who = "caller" if turn.role == "user" else "agent"
    return (f'<tr class="{turn.role}" data-turn="{turn.index}"><td><button data-seek="{turn.start_ms / 1000:.3f}" '
            f'title="play from here">▶</button>{turn.start_ms / 1000:.1f} s</td><td>{who}</td>'
            f'<td class="said">{esc(said)}{timing}{extras}</td>'
            f'<td class="heard{" differs" if differs else ""}">{heard_cell}</td></tr>')  # fmt: skip


def _lanes_svg(turns: list[Turn], duration_s: float) -> str:
    """Caller and agent rows of turn blocks, an effects row, tool ticks and a playhead (x in 0-1000 = the call)."""
    scale = 1000.0 / max(duration_s, 1e-3) / 1000.0  # ms -> x
    rows: list[str] = []
    for turn in turns:
        y, colour = (4, "#2a7ab8") if turn.role == "user" else (24, "#c2571a")
        x, w = turn.start_ms * scale, max(1.0, (turn.end_ms - turn.start_ms) * scale)
        rows.append(f'<rect class="lane-{turn.role}" x="{x:.1f}" y="{y}" width="{w:.1f}" height="16" '
                    f'fill="{colour}"><title>turn {turn.index}</title></rect>')  # fmt: skip
        for effect in turn.effects:
            ex, ew = effect.start_ms * scale, max(2.0, (effect.end_ms - effect.start_ms) * scale)
            rows.append(f'<rect class="effect" x="{ex:.1f}" y="44" width="{ew:.1f}" height="8" fill="#e0a800">'
                        f"<title>{esc(effect.type)}</title></rect>")  # fmt: skip
        for call in turn.tool_calls:
            tx = call.t_ms * scale
            rows.append(f'<line class="toolmark" x1="{tx:.1f}" x2="{tx:.1f}" y1="20" y2="42" stroke="#555">'
                        f"<title>{esc(call.name)}</title></line>")  # fmt: skip
    return ('<svg class="lanes" viewBox="0 0 1000 60" preserveAspectRatio="none">' + "".join(rows)
            + '<line class="playhead" x1="0" x2="0" y1="0" y2="60" stroke="#000" stroke-width="2"/></svg>')  # fmt: skip


def _player(cell: CellView, key: tuple[str, int], turns: list[Turn], budget: AudioBudget) -> str:
    duration_s = max((t.end_ms for t in turns), default=0.0) / 1000.0
    audios, boxes = [], []
    for lane, track, label in LANES:
        path = cell.audio_file(key, track)
        src = None if path is None else lane_source(path, budget, cell.linkable)
        if src is None:
            continue
        audios.append(f'<audio data-lane="{lane}" preload="metadata" src="{esc(src)}"></audio>')
        boxes.append(f'<label><input type="checkbox" data-lane="{lane}" checked> {esc(label)}</label> ')
    note = "" if audios else '<div class="note">no audio for this conversation (none written, or past the budget)</div>'
    return (
        f'<div class="player" data-dur="{duration_s:.3f}">{"".join(audios)}<button class="play">Play</button>'
        f'<span class="clock">0:00.0 / {duration_s:.1f} s</span> {"".join(boxes)}{note}'
        f"{_lanes_svg(turns, duration_s)}"
        '<div class="note">rows: caller · agent (ticks: tool calls) · effects; click to seek</div></div>'
    )


def _panel(cell: CellView, key: tuple[str, int], record: ConversationRecord, budget: AudioBudget, role: str) -> str:
    conv = record.conversation
    turns = conv.turns
    rows = "".join(_turn_row(t, turns[i - 1] if i else None) for i, t in enumerate(turns))
    facts = [f"end: {conv.end_reason}", f"seed {conv.seed}"]
    if conv.error:
        facts.append(f"error: {conv.error}")
    if conv.validation is not None:
        facts.append("valid" if conv.validation.valid else f"invalid after {conv.validation.attempts} attempts")
    if conv.interruptions is not None:
        i = conv.interruptions
        facts.append(f"interruptions ({i.kind}): {i.delivered} delivered, {i.dropped} dropped of {i.planned}")
    details = "".join(f"<details><summary>{esc(n)}: {_num(m.score)}</summary><pre>{_json(m.details)}</pre></details>"
                      for n, m in sorted(record.metrics.items()))  # fmt: skip
    return (
        f'<div class="conv" data-role="{role}"><h3>{esc(cell.condition)} <span class="note">{esc(cell.title)}'
        f'</span></h3><div class="note">{esc(" · ".join(facts))}</div>{_player(cell, key, turns, budget)}'
        '<table class="turns"><tr><th>at</th><th>who</th><th>said (tools, effects)</th><th>heard</th></tr>'
        f"{rows}</table><details><summary>metric details</summary>{details}</details></div>"
    )


def _scores(record: ConversationRecord, twin: ConversationRecord | None) -> str:
    head = "<tr><th>metric</th><th>score</th><th>pass</th>" + ("<th>clean twin</th><th>Δ</th>" if twin else "")
    rows = []
    for name, m in sorted(record.metrics.items()):
        passed = "" if m.passed is None else ("✓" if m.passed else "✗")
        row = f'<tr data-metric="{esc(name)}"><td>{esc(name)}</td><td>{_num(m.score)}</td><td>{passed}</td>'
        if twin is not None:
            other = twin.metrics.get(name)
            score = other.score if other is not None else None
            delta = None if score is None or m.score is None else m.score - score
            row += f"<td>{_num(score)}</td><td>{'' if delta is None else f'{delta:+.3f}'}</td>"
        rows.append(row + "</tr>")
    return f'<table class="scores">{head}</tr>{"".join(rows)}</table>'


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    # media: embedded data URIs, or WAVs linked beside the page (file: on disk, the server's own scheme otherwise)
    return (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
            "media-src * data: file: blob:; img-src data:")  # fmt: skip


def render_page(cell: CellView, twin: CellView | None, page_dir: Path, embed_bytes: int) -> str:
    """The whole page for ``cell`` (and its clean ``twin``, conversation by conversation where both ran the same
    scenario and trial). ``page_dir``: where the page will be written (linked WAVs are relative to it);
    ``embed_bytes``: the embedded-audio budget (evalkit.view.audio)."""
    budget = AudioBudget(embed_bytes, page_dir)
    sections, toc = [], []
    for n, key in enumerate(sorted(cell.records)):
        record = cell.records[key]
        other = twin.records.get(key) if twin is not None else None
        panels = _panel(cell, key, record, budget, "cell")
        if other is not None and twin is not None:
            panels += _panel(twin, key, other, budget, "twin")
        elif twin is not None:
            panels += '<div class="conv note">the clean twin has no conversation of this scenario and trial</div>'
        tc = record.metrics.get("task_completion")
        label = f"{key[0]} t{key[1]}"
        toc.append(f'<li><a href="#c{n}">{esc(label)}</a> {esc(record.conversation.end_reason)}'
                   f"{'' if tc is None else ' · task ' + _num(tc.score, 2)}</li>")  # fmt: skip
        sections.append(f'<section class="pair-section" id="c{n}" data-scenario="{esc(key[0])}" data-trial="{key[1]}">'
                        f"<h2>{esc(label)}</h2>{_scores(record, other)}"
                        f'<div class="pair">{panels}</div></section>')  # fmt: skip
    headline = "".join(f"<tr><td>{esc(k)}</td><td>{_num(cell.aggregates.get(k))}</td>"
                       + (f"<td>{_num(twin.aggregates.get(k))}</td>" if twin else "") + "</tr>"
                       for k in HEADLINE if k in cell.aggregates)  # fmt: skip
    twin_line = (f"clean twin: {esc(twin.title)} ({len(twin.records)} conversations)" if twin is not None
                 else "no clean twin" + ("" if cell.condition == "clean" else " found for this cell"))  # fmt: skip
    audio_note = f"audio: {budget.embedded} lane(s) embedded"
    if budget.linked:
        audio_note += (f", {budget.linked} linked to their WAV beside the page (over the embedding budget: open the "
                       "page from its cell folder to hear them)")  # fmt: skip
    if budget.dropped:
        audio_note += f", {budget.dropped} left out (over the embedding budget; the twin run has the WAVs)"
    script = SCRIPT
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{esc(_csp(script))}">'
            f"<title>{esc(cell.title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{esc(cell.title)}</h1><div>condition <b>{esc(cell.condition)}</b> · {len(cell.records)} "
            f"conversations · {twin_line}</div><div class=\"note\">{esc(audio_note)}</div>"
            f"<table class=\"headline\"><tr><th>aggregate</th><th>this cell</th>{'<th>clean twin</th>' if twin else ''}"
            f"</tr>{headline}</table><ul class=\"toc\">{''.join(toc)}</ul>{''.join(sections)}"
            f"<script>{script}</script></body></html>")  # fmt: skip
