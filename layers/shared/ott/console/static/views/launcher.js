// Launcher moderators: the posters awaiting moderation as a set-top box shows them, approved or rejected with a
// comment (a rejection needs one).
import { html, useEffect, useState } from "../vendor/htm-preact.js";
import { api } from "../auth.js";

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
        body: { poster_id: poster.id, approved, ...(comment ? { comment } : {}) },
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
    </ul>`;
}
