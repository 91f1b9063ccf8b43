// Encoding operators: the niche-content queue by status, an item's history of transitions, and a failed item
// retried (back to the encoders' list, its automatic retries renewed).
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";

const VIEWS = [
  ["awaiting", "Awaiting encoding"],
  ["in_work", "In work"],
  ["retrying", "Failed, retried by the queue"],
  ["failed", "Failed, waiting for an operator"],
];
const STATUS_NAMES = ["", "awaiting", "totranscoder", "bytranscoder", "inprogresing", "successfully", "failure"];

function History({ id, onClose }) {
  const [item, setItem] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api("/staff/niche-content/item.json", { query: { id } })
      .then(setItem)
      .catch((error) => setProblem(error.message));
  }, [id]);
  if (problem) return html`<p role="alert">${problem}</p>`;
  if (!item) return html`<p>Loading…</p>`;
  return html`<section aria-labelledby="history-title" class="history">
    <h2 id="history-title">History of ${item.id}</h2>
    <p class="muted">${item.source_url}</p>
    <table>
      <caption>Transitions, oldest first</caption>
      <thead><tr><th scope="col">When (UTC)</th><th scope="col">Status</th><th scope="col">Cause</th><th scope="col">By</th></tr></thead>
      <tbody>
        ${item.history.map(
          (entry) => html`<tr>
            <td>${entry.at}</td><td>${STATUS_NAMES[entry.status]}</td><td>${entry.cause}</td><td>${entry.actor || ""}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <button class="secondary" onClick=${onClose}>Close the history</button>
  </section>`;
}

export function NichePage() {
  const [view, setView] = useState("failed");
  const [page, setPage] = useState(1);
  const [listing, setListing] = useState(null);
  const [shown, setShown] = useState(null);
  const [notice, setNotice] = useState(null);
  const [problem, setProblem] = useState(null);
  const reload = () =>
    api("/staff/niche-content/queue.json", { query: { status: view, p: String(page) } })
      .then((answer) => (setListing(answer), setProblem(null)))
      .catch((error) => setProblem(error.message));
  useEffect(() => {
    reload();
  }, [view, page]);
  const retry = (id) =>
    api("/staff/niche-content/retry.json", { method: "POST", body: { id } })
      .then(() => (setNotice(`${id} is awaiting encoding again.`), reload()))
      .catch((error) => setProblem(error.message));
  const pages = listing ? Math.max(1, Math.ceil(listing.total / 20)) : 1;
  return html`<div role="group" aria-label="Status" class="views">
      ${VIEWS.map(
        ([name, label]) => html`<button class=${view === name ? "" : "secondary"} aria-pressed=${view === name}
          onClick=${() => (setView(name), setPage(1))}>${label}</button> `,
      )}
    </div>
    ${notice ? html`<p role="status">${notice}</p>` : null}
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${listing
      ? html`<table>
          <caption>${VIEWS.find(([name]) => name === view)[1]}: ${listing.total}, oldest first</caption>
          <thead>
            <tr><th scope="col">Item</th><th scope="col">Source</th><th scope="col">Status</th><th scope="col">Since</th>
              <th scope="col">Failures</th><th scope="col">Next retry</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            ${listing.items.map(
              (item) => html`<tr key=${item.id} data-item=${item.id}>
                <td>${item.id}</td><td>${item.sourceUrl}</td><td>${item.status}</td><td>${item.since || ""}</td>
                <td>${item.failures}</td><td>${item.retryAt || ""}</td>
                <td>
                  <button class="secondary" onClick=${() => setShown(item.id)}>History of ${item.id}</button>
                  ${item.status === "failure" ? html` <button onClick=${() => retry(item.id)}>Retry ${item.id}</button>` : null}
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
        <p>
          Page ${page} of ${pages}
          ${page > 1 ? html` <button class="secondary" onClick=${() => setPage(page - 1)}>Previous page</button>` : null}
          ${page < pages ? html` <button class="secondary" onClick=${() => setPage(page + 1)}>Next page</button>` : null}
        </p>`
      : html`<p>Loading…</p>`}
    ${shown ? html`<${History} key=${shown} id=${shown} onClose=${() => setShown(null)} />` : null}`;
}
