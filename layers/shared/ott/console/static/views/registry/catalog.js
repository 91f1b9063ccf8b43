// Registry maintainers: the territories tree, the contractors and their prefixes, read from the registry's own
// public methods (what every client sees), and a registry file checked whole, or loaded (uploaded to storage, then
// loaded as `ops.registry.load` loads it: checked whole first).
import { html, useEffect, useState } from "../../vendor/htm-preact.js";
import { api } from "../../auth.js";
import { uploadFile } from "../../upload.js";

function Territory({ territory }) {
  const [children, setChildren] = useState(null);
  const open = (event) => {
    if (event.target.open && children === null) {
      api("/registry/2/territories.json", { query: { territory: String(territory.territoryId), limit: "500" } })
        .then((answer) => setChildren(answer.territories))
        .catch(() => setChildren([]));
    }
  };
  const label = `${territory.name || "(no name)"} · #${territory.territoryId}`;
  if (territory.isLeaf) return html`<li>${label}</li>`;
  return html`<li>
    <details onToggle=${open}>
      <summary>${label}</summary>
      ${children === null
        ? html`<p>Loading…</p>`
        : html`<ul>${children.map((child) => html`<${Territory} key=${child.territoryId} territory=${child} />`)}</ul>`}
    </details>
  </li>`;
}

function Prefixes({ contractor }) {
  const [prefixes, setPrefixes] = useState(null);
  useEffect(() => {
    api("/registry/2/prefixes.json", { query: { contractor: String(contractor.contractorId), limit: "500" } })
      .then((answer) => setPrefixes(answer.prefixes))
      .catch(() => setPrefixes([]));
  }, [contractor.contractorId]);
  if (prefixes === null) return html`<p>Loading…</p>`;
  return html`<table>
    <caption>Prefixes of ${contractor.name}</caption>
    <thead><tr><th scope="col">CIDR</th><th scope="col">NAT</th><th scope="col">Territories</th></tr></thead>
    <tbody>
      ${prefixes.map(
        (prefix) => html`<tr>
          <td>${prefix.CIDR}</td><td>${prefix.NAT || ""}</td>
          <td>${prefix.territories.map((territory) => territory.name || territory.territoryId).join(", ")}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

// What each status of a load from the console means for the maintainer.
const LOAD_STATES = {
  waiting: "Waiting for the file to reach storage…",
  validating: "Checking the whole file…",
  invalid: "The file has problems: nothing was written.",
  loading: "Loading: the registry changes when every item is written…",
  loaded: "Loaded: clients see the new registry.",
  failed: "Not loaded: nothing was published.",
};
const FINAL = new Set(["invalid", "loaded", "failed"]);
const KINDS = {
  contractors: "Contractors",
  territories: "Territories",
  areas: "Areas",
  hubs: "Hubs",
  hubIsolations: "Hub isolations",
  prefixes: "Prefixes",
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function Summary({ load }) {
  return html`<table>
    <caption>The registry before and after the load</caption>
    <thead><tr><th scope="col">Kind</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
    <tbody>
      ${Object.entries(KINDS).map(
        ([kind, title]) => html`<tr><th scope="row">${title}</th><td>${load.before[kind]}</td><td>${load.after[kind]}</td></tr>`,
      )}
    </tbody>
  </table>
  <p>${load.written} items written (what changed).</p>`;
}

function LoadReport({ load, sent }) {
  return html`<div class="report" role="status" aria-live="polite" data-status=${load ? load.status : "uploading"}>
    ${load === null
      ? html`<label for="registry-upload-progress">Uploading the file</label>
          <progress id="registry-upload-progress" max="1" value=${sent}>${Math.round(sent * 100)} %</progress>`
      : html`<p>${LOAD_STATES[load.status]}</p>`}
    ${load && load.problems.length
      ? html`<p>${load.problems.length} problems:</p><ul>${load.problems.map((line) => html`<li>${line}</li>`)}</ul>`
      : null}
    ${load && load.detail ? html`<p>${load.detail}</p>` : null}
    ${load && load.status === "loaded" ? html`<${Summary} load=${load} />` : null}
  </div>`;
}

// A registry file checked whole, or loaded: uploaded straight to storage (upload.js), loaded asynchronously by the
// same function as `ops.registry.load` (checked whole first), its status polled until it ends.
function RegistryFile({ onLoaded }) {
  const [file, setFile] = useState(null);
  const [check, setCheck] = useState(null);
  const [load, setLoad] = useState(undefined);
  const [sent, setSent] = useState(0);
  const [problem, setProblem] = useState(null);
  const checkOnly = async () => {
    if (!file) return setProblem("Choose a file first.");
    try {
      setCheck(await api("/staff/registry/check.json", { method: "POST", query: { source: file.name }, body: await file.text() }));
      setLoad(undefined);
      setProblem(null);
    } catch (error) {
      setProblem(error.message);
    }
  };
  const loadFile = async (event) => {
    event.preventDefault();
    if (!file) return setProblem("Choose a file first.");
    setCheck(null);
    setProblem(null);
    setSent(0);
    setLoad(null);
    try {
      const started = await api("/staff/registry/upload.json", { method: "POST", query: { source: file.name } });
      await uploadFile(started.form, file, setSent);
      let current = started.load;
      while (!FINAL.has(current.status)) {
        setLoad(current);
        await pause(1000);
        current = await api("/staff/registry/load.json", { query: { id: current.loadId } });
      }
      setLoad(current);
      if (current.status === "loaded") onLoaded();
    } catch (error) {
      setLoad(undefined);
      setProblem(error.message);
    }
  };
  return html`<h2>Load a registry file</h2>
    <form onSubmit=${loadFile} aria-label="Load the registry from a file">
      <label for="registry-file">Registry file (YAML or JSON)</label>
      <input id="registry-file" type="file" accept=".yaml,.yml,.json" onChange=${(event) => setFile(event.target.files[0])} />
      <button type="button" class="secondary" onClick=${checkOnly}>Check only</button>
      <button type="submit">Load as the registry</button>
    </form>
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${load !== undefined ? html`<${LoadReport} load=${load} sent=${sent} />` : null}
    ${check
      ? html`<div class="report" role="status">
          ${check.valid
            ? html`<p>Valid: ${check.contractors} contractors, ${check.territories} territories, ${check.areas} areas,
                ${check.hubs} hubs, ${check.prefixes} prefixes, ${check.services} services. Nothing was written.</p>`
            : html`<p>${check.problems.length} problems: nothing was written.</p>
                <ul>${check.problems.map((line) => html`<li>${line}</li>`)}</ul>`}
        </div>`
      : null}`;
}

export function RegistryPage() {
  const [roots, setRoots] = useState(null);
  const [contractors, setContractors] = useState(null);
  const [chosen, setChosen] = useState(null);
  const [problem, setProblem] = useState(null);
  const [loads, setLoads] = useState(0); // a load from the console shows the new registry at once
  useEffect(() => {
    api("/registry/2/territories.json", { query: { territory: "0", limit: "500" } })
      .then((answer) => setRoots(answer.territories))
      .catch((error) => setProblem(error.message));
    api("/registry/2/contractors.json", { query: { limit: "500" } })
      .then((answer) => setContractors(answer.contractors))
      .catch((error) => setProblem(error.message));
  }, [loads]);
  if (problem) return html`<p role="alert">${problem}</p>`;
  return html`<h2>Territories</h2>
    ${roots === null
      ? html`<p>Loading…</p>`
      : html`<ul class="tree">
          ${roots.map((root) => html`<${Territory} key=${`${loads}-${root.territoryId}`} territory=${root} />`)}
        </ul>`}
    <h2>Contractors</h2>
    ${contractors === null
      ? html`<p>Loading…</p>`
      : html`<table>
          <caption>Contractors</caption>
          <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Brand</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            ${contractors.map(
              (contractor) => html`<tr key=${contractor.contractorId}>
                <td>${contractor.contractorId}</td><td>${contractor.name}</td><td>${contractor.brandName || ""}</td>
                <td><button class="secondary" onClick=${() => setChosen(contractor)}>Prefixes of ${contractor.name}</button></td>
              </tr>`,
            )}
          </tbody>
        </table>`}
    ${chosen ? html`<${Prefixes} key=${chosen.contractorId} contractor=${chosen} />` : null}
    <${RegistryFile} onLoaded=${() => setLoads((count) => count + 1)} />`;
}
