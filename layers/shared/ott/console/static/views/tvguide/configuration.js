// Guide editors: the guide configuration (zones, channel overrides, rubrics) edited as tables and saved whole over
// the version it was read at. The server checks it whole first (every problem listed, nothing written); a save
// over a version someone else replaced meanwhile is refused (409) and the page says so.
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";

// Each section: its wire key, its fields [wire name, label, kind], and a new row.
const SECTIONS = {
  zones: {
    title: "Zones",
    one: "zone",
    fields: [["name", "Name", "text"], ["geo", "Labels", "list"], ["timezone", "IANA time zone", "text"], ["territories", "Territories", "numbers"]],
  },
  channels: {
    title: "Channel overrides",
    one: "channel override",
    fields: [
      ["alias", "XMLTV id", "text"], ["channelId", "Channel id", "number"], ["type", "Type", "type"],
      ["ageRestriction", "Age", "number"], ["logoURL", "Logo URL", "text"], ["promoURL", "Promo URL", "text"],
      ["artworkURL", "Artwork URL", "text"], ["rubrics", "Rubrics", "numbers"],
    ],
  },
  rubrics: { title: "Rubrics", one: "rubric", fields: [["id", "Id", "number"], ["title", "Title", "text"]] },
};

// Between the stored document and the form's text fields. A value that is not a number is sent as typed, so that
// the server's check names it rather than the page dropping it.
const asNumber = (text) => (/^\d+$/.test(text.trim()) ? Number(text) : text.trim());
const toText = (value, kind) => (value == null ? "" : kind === "list" || kind === "numbers" ? value.join(", ") : String(value));
function toValue(text, kind) {
  const items = () => text.split(",").map((item) => item.trim()).filter(Boolean);
  if (kind === "list") return items();
  if (kind === "numbers") return items().map(asNumber);
  if (!text.trim()) return undefined;
  return kind === "number" ? asNumber(text) : text;
}
const toForm = (configuration) =>
  Object.fromEntries(
    Object.entries(SECTIONS).map(([key, section]) => [
      key,
      (configuration[key] || []).map((entry) => Object.fromEntries(section.fields.map(([name, , kind]) => [name, toText(entry[name], kind)]))),
    ]),
  );
const toDocument = (form) =>
  Object.fromEntries(
    Object.entries(SECTIONS).map(([key, section]) => [
      key,
      form[key].map((row) =>
        Object.fromEntries(
          section.fields.map(([name, , kind]) => [name, toValue(row[name], kind)]).filter(([, value]) => value !== undefined),
        ),
      ),
    ]),
  );

function Field({ id, label, kind, value, onChange }) {
  if (kind === "type") {
    return html`<select id=${id} aria-label=${label} value=${value} onChange=${(event) => onChange(event.target.value)}>
      <option value="">(as the guide says)</option><option value="TV">TV</option><option value="RADIO">RADIO</option>
    </select>`;
  }
  return html`<input id=${id} aria-label=${label} value=${value} onInput=${(event) => onChange(event.target.value)} />`;
}

function Section({ name, rows, onChange }) {
  const section = SECTIONS[name];
  const set = (index, field, value) => onChange(rows.map((row, at) => (at === index ? { ...row, [field]: value } : row)));
  const empty = Object.fromEntries(section.fields.map(([field]) => [field, ""]));
  return html`<table class="editor">
    <caption>${section.title}: ${rows.length}</caption>
    <thead><tr>${section.fields.map(([, label]) => html`<th scope="col">${label}</th>`)}<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>
      ${rows.map(
        (row, index) => html`<tr key=${index}>
          ${section.fields.map(
            ([field, label, kind]) => html`<td><${Field} id=${`${name}-${index}-${field}`} label=${`${label} of ${section.one} ${index + 1}`}
              kind=${kind} value=${row[field]} onChange=${(value) => set(index, field, value)} /></td>`,
          )}
          <td><button type="button" class="secondary" onClick=${() => onChange(rows.filter((_, at) => at !== index))}>
            Remove<span class="visually-hidden"> ${section.one} ${index + 1}</span></button></td>
        </tr>`,
      )}
    </tbody>
    <tfoot><tr><td colspan=${section.fields.length + 1}>
      <button type="button" class="secondary" onClick=${() => onChange([...rows, empty])}>Add a ${section.one}</button>
    </td></tr></tfoot>
  </table>`;
}

export function GuideConfigPage() {
  const [stored, setStored] = useState(null);
  const [form, setForm] = useState(null);
  const [report, setReport] = useState(null);
  const [problem, setProblem] = useState(null);
  const load = () =>
    api("/staff/guide/configuration.json")
      .then((answer) => (setStored(answer), setForm(toForm(answer.configuration)), setProblem(null)))
      .catch((error) => setProblem(error.message));
  useEffect(() => {
    load();
  }, []);
  const send = (check) => {
    const body = { version: stored.version, configuration: toDocument(form), check };
    api("/staff/guide/configuration.json", { method: "POST", body })
      .then((answer) => {
        setProblem(null);
        setReport({ ...answer, check });
        if (answer.valid && !check) setStored({ version: answer.version, configuration: body.configuration });
      })
      .catch((error) =>
        error.status === 409
          ? setProblem(`Not saved: someone else saved the configuration after you opened version ${stored.version}. Reload it, then make your changes again.`)
          : setProblem(error.message),
      );
  };
  if (!form) return problem ? html`<p role="alert">${problem}</p>` : html`<p>Loading…</p>`;
  return html`<form aria-label="Guide configuration" onSubmit=${(event) => (event.preventDefault(), send(false))}>
    <p>Version ${stored.version}. A save replaces the whole configuration; it is checked whole first.</p>
    ${Object.keys(SECTIONS).map(
      (name) => html`<${Section} key=${name} name=${name} rows=${form[name]} onChange=${(rows) => setForm({ ...form, [name]: rows })} />`,
    )}
    <p>
      <button type="button" class="secondary" onClick=${() => send(true)}>Check only</button>
      <button type="submit">Save the configuration</button>
      <button type="button" class="secondary" onClick=${() => (setReport(null), load())}>Reload</button>
    </p>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${report && report.valid
      ? html`<p role="status">${report.check ? "Valid: nothing was written." : `Saved as version ${report.version}.`}</p>`
      : null}
    ${report && !report.valid
      ? html`<div role="alert"><p>Not saved: ${report.problems.length} problems.</p>
          <ul>${report.problems.map((text) => html`<li>${text}</li>`)}</ul></div>`
      : null}
  </form>`;
}
