// Guide editors: the zones with their labels, channels and last import; a zone's imports of the week and an
// import's report; a new zone; an XMLTV file uploaded into a zone, its import followed until its report.
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";
import { uploadFile } from "../../upload.js";

const POLL_MS = 1000;
const WAIT_MS = 10 * 60 * 1000; // the import starts within seconds of the upload; past this, something is wrong

const when = (epoch) => (epoch ? new Date(epoch * 1000).toISOString().replace(".000Z", "Z") : "");
const counts = (entry) => entry.error || `${entry.channels ?? 0} channels, ${entry.telecasts ?? 0} telecasts`;
const listed = (counted) =>
  Object.entries(counted || {}).map(([what, count]) => html`<li><code>${what}</code>: ${count}</li>`);

function Report({ reportKey, onClose }) {
  const [report, setReport] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api("/staff/guide/report.json", { query: { key: reportKey } })
      .then(setReport)
      .catch((error) => setProblem(error.message));
  }, [reportKey]);
  if (problem) return html`<p role="alert">${problem}</p>`;
  if (!report) return html`<p>Loading…</p>`;
  return html`<section aria-labelledby="report-title" class="history">
    <h2 id="report-title">Report of ${report.key}</h2>
    <dl>
      <dt>Status</dt><dd>${report.status}</dd>
      <dt>Zone</dt><dd>${report.zone}</dd>
      <dt>Started, finished (UTC)</dt><dd>${when(report.started)} – ${when(report.finished)}</dd>
      <dt>Imported</dt><dd>${counts(report)}, ${report.shows ?? 0} shows</dd>
      ${report.untitled ? html`<dt>Without a title</dt><dd>${report.untitled}</dd>` : null}
    </dl>
    ${Object.keys(report.skipped || {}).length
      ? html`<h3>Skipped</h3><ul>${listed(report.skipped)}</ul>`
      : html`<p>Nothing was skipped.</p>`}
    ${(report.examples || []).length
      ? html`<table>
          <caption>Examples of what was skipped</caption>
          <thead><tr><th scope="col">Line</th><th scope="col">Reason</th><th scope="col">Channel</th><th scope="col">Detail</th></tr></thead>
          <tbody>${report.examples.map(
            (e) => html`<tr><td>${e.line}</td><td>${e.reason}</td><td>${e.channel || ""}</td><td>${e.detail || ""}</td></tr>`,
          )}</tbody>
        </table>`
      : null}
    ${Object.keys(report.unmapped_categories || {}).length
      ? html`<h3>Categories without a rubric</h3><ul>${listed(report.unmapped_categories)}</ul>`
      : null}
    <button class="secondary" onClick=${onClose}>Close the report</button>
  </section>`;
}

function Imports({ zone, onReport }) {
  const [history, setHistory] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api("/staff/guide/imports.json", { query: { zone } })
      .then((answer) => setHistory(answer.imports))
      .catch((error) => setProblem(error.message));
  }, [zone]);
  if (problem) return html`<p role="alert">${problem}</p>`;
  if (!history) return html`<p>Loading…</p>`;
  return html`<table>
    <caption>Imports of ${zone} this week, the newest first</caption>
    <thead><tr><th scope="col">Started (UTC)</th><th scope="col">File</th><th scope="col">Status</th><th scope="col">What</th>
      <th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>
      ${history.map(
        (entry) => html`<tr key=${entry.key}>
          <td>${when(entry.started)}</td><td>${entry.key}</td><td>${entry.status}</td><td>${counts(entry)}</td>
          <td><button class="secondary" onClick=${() => onReport(entry.key)}>Report of ${entry.key}</button></td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

// Where an upload stands: sending, waiting for the import to start, importing (counts so far), done.
function stage(sent, report) {
  if (report?.status === "running") return `Importing: ${counts(report)} so far.`;
  if (report) return `${report.status[0].toUpperCase()}${report.status.slice(1)}: ${counts(report)}.`;
  if (sent === 1) return "Sent; waiting for the import to start…";
  return sent === null ? null : `Sending: ${Math.round(sent * 100)}%`;
}

function Upload({ zones, onDone }) {
  const [zone, setZone] = useState(zones[0]?.name);
  const [file, setFile] = useState(null);
  const [sent, setSent] = useState(null);
  const [key, setKey] = useState(null);
  const [report, setReport] = useState(null);
  const [problem, setProblem] = useState(null);
  const send = async (event) => {
    event.preventDefault();
    setProblem(null), setKey(null), setReport(null), setSent(null);
    if (!file) return setProblem("Choose an XMLTV file first.");
    try {
      const form = await api("/staff/guide/upload.json", { method: "POST", body: { zone, fileName: file.name } });
      setSent(0);
      setKey(await uploadFile(form, file, setSent));
    } catch (error) {
      setProblem(error.message);
    }
  };
  useEffect(() => {
    if (!key) return undefined;
    const until = Date.now() + WAIT_MS;
    let timer;
    const poll = () =>
      api("/staff/guide/report.json", { query: { key } })
        .then((found) => {
          setReport(found);
          if (found.status === "running") timer = setTimeout(poll, POLL_MS);
          else onDone(key);
        })
        .catch((error) => {
          if (error.status !== 404) return setProblem(error.message);
          if (Date.now() > until) return setProblem(`The import of ${key} has not started; look for it in the zone's imports later.`);
          timer = setTimeout(poll, POLL_MS);
        });
    poll();
    return () => clearTimeout(timer);
  }, [key]);
  return html`<form onSubmit=${send} aria-label="Upload a guide">
    <h2>Upload a guide</h2>
    <label for="upload-zone">Into zone</label>
    <select id="upload-zone" value=${zone} onChange=${(event) => setZone(event.target.value)}>
      ${zones.map((row) => html`<option value=${row.name}>${row.name}</option>`)}
    </select>
    <label for="upload-file">XMLTV file</label>
    <input id="upload-file" type="file" onChange=${(event) => setFile(event.target.files[0] || null)} />
    <button type="submit">Upload and import</button>
    <p role="status">${stage(sent, report)}</p>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
  </form>`;
}

function NewZone({ onCreated }) {
  const [name, setName] = useState("");
  const [geo, setGeo] = useState("");
  const [timezone, setTimezone] = useState("");
  const [problem, setProblem] = useState(null);
  const create = (event) => {
    event.preventDefault();
    const labels = geo.split(",").map((label) => label.trim()).filter(Boolean);
    const body = { name, ...(labels.length ? { geo: labels } : {}), ...(timezone ? { timezone } : {}) };
    api("/staff/guide/create-zone.json", { method: "POST", body })
      .then((zone) => (setProblem(null), setName(""), setGeo(""), setTimezone(""), onCreated(zone)))
      .catch((error) => setProblem(error.message));
  };
  const field = (id, label, value, set) => html`<label for=${id}>${label}</label>
    <input id=${id} value=${value} onInput=${(event) => set(event.target.value)} />`;
  return html`<form onSubmit=${create} aria-label="New zone">
    <h2>New zone</h2>
    ${field("zone-name", "Zone name", name, setName)}
    ${field("zone-geo", "Labels (comma-separated; default: the name)", geo, setGeo)}
    ${field("zone-timezone", "IANA time zone (default: the name when IANA, else UTC)", timezone, setTimezone)}
    <button type="submit">Create the zone</button>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
  </form>`;
}

export function GuidePage() {
  const [zones, setZones] = useState(null);
  const [zone, setZone] = useState(null);
  const [reportKey, setReportKey] = useState(null);
  const [notice, setNotice] = useState(null);
  const [problem, setProblem] = useState(null);
  const reload = () =>
    api("/staff/guide/zones.json")
      .then((answer) => (setZones(answer.zones), setProblem(null)))
      .catch((error) => setProblem(error.message));
  useEffect(() => {
    reload();
  }, []);
  const created = (made) => (setNotice(`Zone ${made.name} created (time zone ${made.timezone}).`), reload());
  return html`${notice ? html`<p role="status">${notice}</p>` : null}
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${zones
      ? html`<table>
          <caption>Zones: ${zones.length}</caption>
          <thead><tr><th scope="col">Zone</th><th scope="col">Labels</th><th scope="col">Time zone</th>
            <th scope="col">Territories</th><th scope="col">Channels</th><th scope="col">Last import (UTC)</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            ${zones.map(
              (row) => html`<tr key=${row.name} data-zone=${row.name}>
                <td>${row.name}</td><td>${row.geo.join(", ")}</td><td>${row.timezone}</td>
                <td>${row.territories.join(", ")}</td><td>${row.channels}</td>
                <td>${row.lastImport ? `${when(row.lastImport.started)} ${row.lastImport.status}: ${counts(row.lastImport)}` : "none this week"}</td>
                <td><button class="secondary" onClick=${() => (setZone(row.name), setReportKey(null))}>Imports of ${row.name}</button></td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : html`<p>Loading…</p>`}
    ${zone ? html`<${Imports} key=${zone} zone=${zone} onReport=${setReportKey} />` : null}
    ${reportKey ? html`<${Report} key=${reportKey} reportKey=${reportKey} onClose=${() => setReportKey(null)} />` : null}
    ${zones ? html`<${Upload} zones=${zones} onDone=${(key) => (setReportKey(key), reload())} />` : null}
    <${NewZone} onCreated=${created} />`;
}
