// Channel engineers: the kept versions with who loaded each and when, a diff between two, a rollback, and a new
// version from a YAML, JSON or M3U file, checked whole first (every problem listed, nothing written).
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";

function Versions({ listing, onRollback }) {
  return html`<table>
    <caption>Kept versions, newest first</caption>
    <thead>
      <tr>
        <th scope="col">Version</th><th scope="col">Loaded</th><th scope="col">By</th><th scope="col">File</th>
        <th scope="col">Channels</th><th scope="col">Warnings</th><th scope="col"><span class="visually-hidden">Action</span></th>
      </tr>
    </thead>
    <tbody>
      ${listing.versions.map(
        (version) => html`<tr key=${version.version} data-version=${version.version}>
          <td>${version.version}${version.current ? html` <strong>(current)</strong>` : null}</td>
          <td>${version.loadedAt}</td>
          <td>${version.loadedBy || "—"}</td>
          <td>${version.source}</td>
          <td>${version.channels}</td>
          <td>${version.warnings}</td>
          <td>
            ${version.current
              ? null
              : html`<button onClick=${() => onRollback(version.version)}>Make version ${version.version} current</button>`}
          </td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function Changes({ changes }) {
  return html`<ul>
    ${changes.map(
      (change) => html`<li><code>${change.field}</code>: <del>${change.before ?? "(not set)"}</del>
        → <ins>${change.after ?? "(not set)"}</ins></li>`,
    )}
  </ul>`;
}

function Diff({ listing }) {
  const numbers = listing.versions.map((version) => version.version);
  const [from, setFrom] = useState(numbers[1] ?? numbers[0]);
  const [to, setTo] = useState(numbers[0]);
  const [diff, setDiff] = useState(null);
  const [problem, setProblem] = useState(null);
  const compare = (event) => {
    event.preventDefault();
    api("/staff/channels/diff.json", { query: { from, to } })
      .then((answer) => (setDiff(answer), setProblem(null)))
      .catch((error) => setProblem(error.message));
  };
  const choice = (id, label, value, set) => html`<label for=${id}>${label}</label>
    <select id=${id} value=${value} onChange=${(event) => set(Number(event.target.value))}>
      ${numbers.map((number) => html`<option value=${number}>${number}</option>`)}
    </select>`;
  return html`<form onSubmit=${compare} aria-label="Compare versions">
      ${choice("diff-from", "From version", from, setFrom)} ${choice("diff-to", "to version", to, setTo)}
      <button type="submit">Compare</button>
    </form>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${diff
      ? html`<div class="diff" aria-live="polite">
          <p>Version ${diff.to} against ${diff.from}: ${diff.added.length} added, ${diff.removed.length} removed,
            ${diff.changed.length} changed.</p>
          ${diff.added.map((channel) => html`<p class="added">+ ${channel.id} ${channel.title}</p>`)}
          ${diff.removed.map((channel) => html`<p class="removed">− ${channel.id} ${channel.title}</p>`)}
          ${diff.changed.map(
            (channel) => html`<div><p>~ ${channel.id} ${channel.title}</p><${Changes} changes=${channel.changes} /></div>`,
          )}
          ${diff.otherChanges.length ? html`<p>Settings</p><${Changes} changes=${diff.otherChanges} />` : null}
        </div>`
      : null}`;
}

function Upload({ onLoaded }) {
  const [file, setFile] = useState(null);
  const [report, setReport] = useState(null);
  const [problem, setProblem] = useState(null);
  const send = async (check) => {
    if (!file) return setProblem("Choose a file first.");
    const name = file.name.toLowerCase();
    const format = name.endsWith(".m3u") || name.endsWith(".m3u8") ? "m3u" : name.endsWith(".json") ? "json" : "yaml";
    try {
      const answer = await api("/staff/channels/load.json", {
        method: "POST",
        query: { format, source: file.name, check: String(check) },
        body: await file.text(),
      });
      setReport(answer);
      setProblem(null);
      if (answer.version) onLoaded();
    } catch (error) {
      setProblem(error.message);
    }
  };
  return html`<form onSubmit=${(event) => (event.preventDefault(), send(false))} aria-label="Load a configuration">
      <label for="channels-file">Configuration file (YAML, JSON or an M3U playlist)</label>
      <input id="channels-file" type="file" accept=".yaml,.yml,.json,.m3u,.m3u8" onChange=${(event) => setFile(event.target.files[0])} />
      <button type="button" class="secondary" onClick=${() => send(true)}>Check only</button>
      <button type="submit">Load as the new version</button>
    </form>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${report
      ? html`<div class="report" role="status">
          <p>
            ${report.valid
              ? report.version
                ? `Loaded as version ${report.version.version}: ${report.channels} channels.`
                : `Valid: ${report.channels} channels. Nothing was written.`
              : `${report.problems.length} problems: nothing was written.`}
          </p>
          ${[["Problems", report.problems], ["Warnings", report.warnings], ["Notes", report.notes]].map(([title, lines]) =>
            lines.length ? html`<p>${title}</p><ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>` : null,
          )}
        </div>`
      : null}`;
}

export function ChannelsPage() {
  const [listing, setListing] = useState(null);
  const [problem, setProblem] = useState(null);
  const reload = () => api("/staff/channels/versions.json").then(setListing).catch((error) => setProblem(error.message));
  const rollback = (version) =>
    api("/staff/channels/rollback.json", { method: "POST", body: { version } })
      .then(() => (setProblem(null), reload()))
      .catch((error) => setProblem(error.message));
  useEffect(() => {
    reload();
  }, []);
  if (listing === null && !problem) return html`<p>Loading…</p>`;
  return html`${problem ? html`<p role="alert">${problem}</p>` : null}
    ${listing ? html`<${Versions} listing=${listing} onRollback=${rollback} />` : null}
    <h2>Compare two versions</h2>
    ${listing && listing.versions.length ? html`<${Diff} key=${listing.versions.length + ":" + listing.current} listing=${listing} />` : html`<p>Nothing loaded yet.</p>`}
    <h2>Load a new version</h2>
    <${Upload} onLoaded=${reload} />`;
}
