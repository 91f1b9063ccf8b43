// The audit trail of an area: who changed what and when, with the state before and after, newest first, a page of
// fifty at a time.
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";

const shown = (state) => (state ? JSON.stringify(state) : "—");

export function AuditPage({ area }) {
  const [entries, setEntries] = useState([]);
  const [next, setNext] = useState(undefined);
  const [problem, setProblem] = useState(null);
  const more = (before) =>
    api("/staff/audit.json", { query: { area, limit: "50", ...(before ? { before } : {}) } })
      .then((page) => (setEntries((had) => [...(before ? had : []), ...page.entries]), setNext(page.next)))
      .catch((error) => setProblem(error.message));
  useEffect(() => {
    more();
  }, [area]);
  if (problem) return html`<p role="alert">${problem}</p>`;
  return html`<table class="audit">
      <caption>What staff changed, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">Through</th><th scope="col">What</th>
          <th scope="col">Before</th><th scope="col">After</th><th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        ${entries.map(
          (entry) => html`<tr>
            <td>${entry.at}</td><td>${entry.actor}</td><td>${entry.via}</td><td>${entry.action} ${entry.subject}</td>
            <td>${shown(entry.before)}</td><td>${shown(entry.after)}</td><td>${entry.detail || ""}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${entries.length === 0 ? html`<p>Nothing recorded yet.</p>` : null}
    ${next ? html`<button onClick=${() => more(next)}>Older entries</button>` : null}`;
}
