// Launcher moderators: the posters awaiting moderation as a set-top box shows them, approved or rejected with a
// comment (a rejection needs one); the block as any contractor, territory and client see it, with statistics, at
// a chosen moment (time travel); a poster's clicks per day as a chart.
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";

const STATES = { PENDING: "Awaiting moderation", APPROVED: "Approved", REJECTED: "Rejected" };

function PosterCard({ poster }) {
  const image = (poster.images || [])[0];
  const swatch = poster.color ? html`<span class="swatch" style=${{ background: poster.color }}></span>` : null;
  const members = [...(poster.attached_posters || []), ...(poster.related_posters || [])];
  return html`<div class="poster">
    ${image
      ? html`<img src=${image.url} width="160" height="90" alt="Image of poster ${poster.id} (${image.profile})" />`
      : null}
    <p><strong>${poster.title || `Poster ${poster.id}`}</strong> ${swatch}</p>
    <p class="muted">#${poster.id} · ${poster.type}${poster.color ? ` · ${poster.color}` : ""}</p>
    ${members.length
      ? html`<p class="muted">With: ${members.map((member) => member.title || `#${member.id}`).join(", ")}</p>`
      : null}
  </div>`;
}

function Decision({ poster, onDecided }) {
  const [comment, setComment] = useState("");
  const [problem, setProblem] = useState(null);
  const decide = async (approved) => {
    try {
      await api("/staff/launcher/decisions.json", {
        method: "POST",
        // `seen`: what this moderator decided on; a decision made meanwhile by another is a 409, not overwritten.
        body: {
          poster_id: poster.id,
          approved,
          seen: poster.moderation?.state || "PENDING",
          ...(comment ? { comment } : {}),
        },
      });
      setProblem(null);
      onDecided();
    } catch (error) {
      setProblem(error.message);
    }
  };
  const field = `comment-${poster.id}`;
  return html`<div class="decision">
    <label for=${field}>Comment</label>
    <input id=${field} value=${comment} maxlength="1000" onInput=${(event) => setComment(event.target.value)} />
    <button onClick=${() => decide(true)}>Approve</button>
    <button class="secondary" onClick=${() => decide(false)}>Reject</button>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
  </div>`;
}

function DailyChart({ posterId }) {
  const [daily, setDaily] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api("/staff/launcher/daily.json", { query: { poster: String(posterId), days: "30" } })
      .then(setDaily)
      .catch((error) => setProblem(error.message));
  }, [posterId]);
  if (problem) return html`<p role="alert">${problem}</p>`;
  if (!daily) return html`<p>Loading…</p>`;
  if (!daily.days.length) return html`<p>No daily counts yet for poster ${posterId} (they come with the hourly snapshots).</p>`;
  const most = Math.max(1, ...daily.days.map((day) => day.clicks));
  const width = 24;
  return html`<figure class="chart">
    <figcaption>Clicks per day of poster ${posterId}, last 30 days (UTC)</figcaption>
    <svg viewBox="0 0 ${daily.days.length * width} 110" width=${daily.days.length * width} height="110" aria-hidden="true">
      ${daily.days.map(
        (day, index) => html`<rect x=${index * width + 2} y=${100 - (day.clicks / most) * 100} width=${width - 4}
          height=${(day.clicks / most) * 100} fill="#0b5cad"><title>${day.day}: ${day.clicks}</title></rect>`,
      )}
    </svg>
    <table>
      <caption>Daily clicks of poster ${posterId}</caption>
      <thead><tr><th scope="col">Day</th><th scope="col">Clicks</th></tr></thead>
      <tbody>${daily.days.map((day) => html`<tr><td>${day.day}</td><td>${day.clicks}</td></tr>`)}</tbody>
    </table>
  </figure>`;
}

function Audience() {
  const [form, setForm] = useState({ contractor: "", territory: "", client: "", moment: "" });
  const [posters, setPosters] = useState(null);
  const [charted, setCharted] = useState(null);
  const [problem, setProblem] = useState(null);
  const field = (name, label, type = "text") => html`<label for="audience-${name}">${label}</label>
    <input id="audience-${name}" type=${type} value=${form[name]}
      onInput=${(event) => setForm({ ...form, [name]: event.target.value })} />`;
  const show = (event) => {
    event.preventDefault();
    const query = { statistics: "true", moderation: "true" };
    for (const name of ["contractor", "territory", "client"]) if (form[name]) query[name] = form[name];
    if (form.moment) query.time_travel = String(Math.floor(Date.parse(`${form.moment}Z`) / 1000));
    api("/staff/launcher/posters.json", { query })
      .then((answer) => (setPosters(answer.posters), setProblem(null)))
      .catch((error) => setProblem(error.message));
  };
  return html`<h2>The block as an audience sees it</h2>
    <form onSubmit=${show} aria-label="Audience">
      ${field("contractor", "Contractor id")} ${field("territory", "Territory id")} ${field("client", "Client id")}
      ${field("moment", "As it was at (UTC)", "datetime-local")}
      <button type="submit">Show the block</button>
    </form>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${posters
      ? html`<ul class="cards">
          ${posters.map(
            (poster) => html`<li key=${poster.id} data-audience-poster=${poster.id}>
              <${PosterCard} poster=${poster} />
              ${poster.statistics
                ? html`<p>Clicks: ${poster.statistics.count_total} in all, ${poster.statistics.count_daily} in 24 hours</p>`
                : null}
              ${poster.moderation ? html`<p class="state">${STATES[poster.moderation.state]}</p>` : null}
              <button class="secondary" onClick=${() => setCharted(poster.id)}>Daily clicks of poster ${poster.id}</button>
            </li>`,
          )}
        </ul>`
      : null}
    ${charted ? html`<${DailyChart} key=${charted} posterId=${charted} />` : null}`;
}

export function LauncherPage() {
  const [posters, setPosters] = useState(null);
  const [problem, setProblem] = useState(null);
  const reload = () =>
    api("/staff/launcher/moderation.json")
      .then((answer) => setPosters(answer.posters))
      .catch((error) => setProblem(error.message));
  useEffect(() => {
    reload();
  }, []);
  if (problem) return html`<p role="alert">${problem}</p>`;
  if (posters === null) return html`<p>Loading…</p>`;
  return html`<h2>Posters marked for pre-moderation</h2>
    ${posters.length === 0 ? html`<p>No poster is marked for pre-moderation.</p>` : null}
    <ul class="cards">
      ${posters.map(
        (poster) => html`<li key=${poster.id} data-poster=${poster.id}>
          <${PosterCard} poster=${poster} />
          <p class="state">
            ${STATES[poster.moderation.state]}
            ${poster.moderation.comment ? html` — “${poster.moderation.comment}”` : null}
            ${poster.moderation.approved_by || poster.moderation.rejected_by
              ? html` (${poster.moderation.approved_by || poster.moderation.rejected_by})`
              : null}
          </p>
          <${Decision} poster=${poster} onDecided=${reload} />
        </li>`,
      )}
    </ul>
    <${Audience} />`;
}
