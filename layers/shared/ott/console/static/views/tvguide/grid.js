// Guide editors: a zone's day as a grid, channels by hours on the zone's clock. Each telecast is a button placed
// by its start and length (positions set through the CSSOM, which the CSP allows); it opens a dialog with every
// detail the guide keeps. Tab walks the cells in channel and time order; Escape closes the dialog.
import { html, useEffect, useRef, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";

const PAGE = 25; // channels a page, as the route's default
const wanted = (navigator.language || "en").split("-")[0];
// The text in the browser's language, else the first the guide has.
const text = (texts) => (texts && (texts[wanted] ?? Object.values(texts)[0])) || "";
const clock = (iso) => iso.slice(11, 16);
const percent = (part, whole) => `${(100 * part) / whole}%`;

function Details({ telecast, channel, onClose }) {
  const dialog = useRef(null);
  useEffect(() => {
    dialog.current.showModal();
  }, []);
  const languages = (texts) => Object.entries(texts).map(([lang, value]) => html`<li lang=${lang}>${value} <span class="muted">(${lang})</span></li>`);
  return html`<dialog ref=${dialog} onClose=${onClose} aria-labelledby="telecast-title" class="telecast">
    <h2 id="telecast-title">${text(telecast.titles)}</h2>
    <dl>
      <dt>Channel</dt><dd>${text(channel.titles)} (${channel.channelId}, <code>${channel.alias}</code>)</dd>
      <dt>Time (zone's clock)</dt><dd>${telecast.start.slice(0, 10)} ${clock(telecast.start)}–${clock(telecast.end)}, ${Math.round(telecast.duration / 60)} min</dd>
      <dt>Titles</dt><dd><ul>${languages(telecast.titles)}</ul></dd>
      ${Object.keys(telecast.descriptions).length ? html`<dt>Descriptions</dt><dd><ul>${languages(telecast.descriptions)}</ul></dd>` : null}
      <dt>Show</dt><dd>${telecast.showId ?? "none"}</dd>
      <dt>Age restriction</dt><dd>${telecast.ageRestriction != null ? `${telecast.ageRestriction}+` : "not given"}</dd>
      <dt>Categories</dt><dd>${telecast.categories.map((c) => (c.type ? `${c.title} (${c.type})` : c.title)).join(", ") || "none"}</dd>
      <dt>Telecast id</dt><dd>${telecast.id}</dd>
      ${telecast.URL ? html`<dt>Link</dt><dd><a href=${telecast.URL} rel="noreferrer">${telecast.URL}</a></dd>` : null}
    </dl>
    ${(telecast.telecastImages || []).map(
      (image) => html`<figure><img src=${image.location} alt="" width=${image.width || 160} />
        <figcaption>${image.profile}: ${image.location}</figcaption></figure>`,
    )}
    <form method="dialog"><button>Close</button></form>
  </dialog>`;
}

function Lane({ channel, seconds, onOpen }) {
  return html`<div class="lane">
    ${channel.telecasts.map((telecast) => {
      const from = Math.max(0, telecast.fromDayStart);
      const to = Math.min(seconds, telecast.fromDayStart + telecast.duration);
      const place = { left: percent(from, seconds), width: percent(to - from, seconds) };
      return html`<button key=${telecast.id} class="cell" style=${place} data-telecast=${telecast.id}
        onClick=${() => onOpen(telecast, channel)}>${clock(telecast.start)} ${text(telecast.titles)}</button>`;
    })}
  </div>`;
}

function Grid({ grid, onOpen }) {
  return html`<div class="day-grid" role="region" aria-label="Schedule grid" tabindex="0">
    <table>
      <caption>${grid.zone} on ${grid.date} (${grid.timezone}): channels ${grid.offset + 1}–${grid.offset + grid.channels.length} of ${grid.channelsTotal}</caption>
      <thead><tr><th scope="col">Channel</th><th scope="col"><div class="lane hours">
        ${grid.hours.map((hour, n) => html`<span key=${n} style=${{ left: percent(n, grid.hours.length) }}>${hour}</span>`)}
      </div></th></tr></thead>
      <tbody>
        ${grid.channels.map(
          (channel) => html`<tr key=${channel.channelId} data-channel=${channel.channelId}>
            <th scope="row">${text(channel.titles)} <span class="muted">${channel.channelId}</span></th>
            <td>${channel.telecasts.length
              ? html`<${Lane} channel=${channel} seconds=${grid.seconds} onOpen=${onOpen} />`
              : html`<span class="muted">no schedule this day</span>`}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function GuideGridPage() {
  const [zones, setZones] = useState(null);
  const [choice, setChoice] = useState({ zone: null, date: null, offset: 0 });
  const [grid, setGrid] = useState(null);
  const [opened, setOpened] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api("/staff/guide/zones.json")
      .then((answer) => (setZones(answer.zones), setChoice((now) => ({ ...now, zone: answer.zones[0]?.name }))))
      .catch((error) => setProblem(error.message));
  }, []);
  useEffect(() => {
    if (!choice.zone) return;
    const query = { zone: choice.zone, offset: choice.offset, limit: PAGE, ...(choice.date ? { date: choice.date } : {}) };
    api("/staff/guide/grid.json", { query })
      .then((answer) => (setGrid(answer), setProblem(null)))
      .catch((error) => setProblem(error.message));
  }, [choice]);
  const choose = (change) => setChoice((now) => ({ ...now, offset: 0, ...change }));
  const dates = grid ? [...new Set([...grid.dates, grid.date])].sort() : [];
  return html`${problem ? html`<p role="alert">${problem}</p>` : null}
    ${zones
      ? html`<form aria-label="Which day" class="grid-choice" onSubmit=${(event) => event.preventDefault()}>
          <label for="grid-zone">Zone</label>
          <select id="grid-zone" value=${choice.zone} onChange=${(event) => choose({ zone: event.target.value, date: null })}>
            ${zones.map((zone) => html`<option value=${zone.name}>${zone.name}</option>`)}
          </select>
          <label for="grid-date">Day</label>
          <select id="grid-date" value=${grid?.date} onChange=${(event) => choose({ date: event.target.value })}>
            ${dates.map((day) => html`<option value=${day}>${day}</option>`)}
          </select>
          ${choice.offset > 0
            ? html`<button type="button" class="secondary" onClick=${() => setChoice((now) => ({ ...now, offset: Math.max(0, now.offset - PAGE) }))}>Previous channels</button>`
            : null}
          ${grid && grid.offset + grid.channels.length < grid.channelsTotal
            ? html`<button type="button" class="secondary" onClick=${() => setChoice((now) => ({ ...now, offset: now.offset + PAGE }))}>Next channels</button>`
            : null}
        </form>`
      : null}
    ${grid ? html`<${Grid} grid=${grid} onOpen=${(telecast, channel) => setOpened({ telecast, channel })} />` : html`<p>Loading…</p>`}
    ${opened ? html`<${Details} key=${opened.telecast.id} ...${opened} onClose=${() => setOpened(null)} />` : null}`;
}
