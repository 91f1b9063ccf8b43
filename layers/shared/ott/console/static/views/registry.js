// Registry maintainers: the territories tree, the contractors and their prefixes, read from the registry's own
// public methods (what every client sees), and a registry file checked whole before it is loaded (loading it stays
// `ops.registry_load`, which runs the same check).
import { html, useEffect, useState } from "../vendor/htm-preact.js";
import { api } from "../auth.js";

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

function FileCheck() {
  const [report, setReport] = useState(null);
  const [problem, setProblem] = useState(null);
  const check = async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      setReport(await api("/staff/registry/check.json", { method: "POST", query: { source: file.name }, body: await file.text() }));
      setProblem(null);
    } catch (error) {
      setProblem(error.message);
    }
  };
  return html`<h2>Check a registry file</h2>
    <label for="registry-file">Registry file (YAML or JSON)</label>
    <input id="registry-file" type="file" accept=".yaml,.yml,.json" onChange=${check} />
    ${problem ? html`<p role="alert">${problem}</p>` : null}
    ${report
      ? html`<div role="status">
          ${report.valid
            ? html`<p>Valid: ${report.contractors} contractors, ${report.territories} territories, ${report.areas} areas,
                ${report.hubs} hubs, ${report.prefixes} prefixes, ${report.services} services. Load it with
                <code>ops.registry_load</code>.</p>`
            : html`<p>${report.problems.length} problems:</p><ul>${report.problems.map((line) => html`<li>${line}</li>`)}</ul>`}
        </div>`
      : null}`;
}

export function RegistryPage() {
  const [roots, setRoots] = useState(null);
  const [contractors, setContractors] = useState(null);
  const [chosen, setChosen] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api("/registry/2/territories.json", { query: { territory: "0", limit: "500" } })
      .then((answer) => setRoots(answer.territories))
      .catch((error) => setProblem(error.message));
    api("/registry/2/contractors.json", { query: { limit: "500" } })
      .then((answer) => setContractors(answer.contractors))
      .catch((error) => setProblem(error.message));
  }, []);
  if (problem) return html`<p role="alert">${problem}</p>`;
  return html`<h2>Territories</h2>
    ${roots === null
      ? html`<p>Loading…</p>`
      : html`<ul class="tree">${roots.map((root) => html`<${Territory} key=${root.territoryId} territory=${root} />`)}</ul>`}
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
    <${FileCheck} />`;
}
