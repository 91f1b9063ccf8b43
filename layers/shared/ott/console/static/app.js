// The operator's console: who is signed in, one page per area their token opens (#/launcher, #/channels, …) and
// the audit trail of each. Preact with htm (tagged templates): ES modules as they are, no build step.
import { html, render, useEffect, useState } from "./vendor/htm-preact.js";
import { api, completeSignIn, signIn, signOut } from "./auth.js";
import { AuditPage } from "./views/console/audit.js";
import { ChannelsPage } from "./views/channels/configuration.js";
import { GuidePage } from "./views/tvguide/zones.js";
import { GuideConfigPage } from "./views/tvguide/configuration.js";
import { GuideGridPage } from "./views/tvguide/grid.js";
import { LauncherPage } from "./views/launcher/moderation.js";
import { NichePage } from "./views/nichecontent/queue.js";
import { RegistryPage } from "./views/registry/catalog.js";

// The pages of each area, in the console's order; an area without one shows only its audit trail. `views` are
// an area's further tabs (#/guide/grid), each [label, page].
const AREAS = {
  launcher: { title: "Launcher moderation", page: LauncherPage },
  guide: {
    title: "Programme guide",
    page: GuidePage,
    views: { grid: ["Day grid", GuideGridPage], configuration: ["Configuration", GuideConfigPage] },
  },
  channels: { title: "Channel configuration", page: ChannelsPage },
  niche_content: { title: "Niche content", page: NichePage },
  registry: { title: "Registry", page: RegistryPage },
};

function currentRoute() {
  const [area, view] = location.hash.replace(/^#\/?/, "").split("/");
  return { area, view: view || "main" };
}

function Navigation({ me, route }) {
  return html`<nav aria-label="Areas">
    <ul>
      ${me.areas.map(
        (area) => html`<li>
          <a href="#/${area}" aria-current=${route.area === area ? "page" : undefined}>${AREAS[area].title}</a>
        </li>`,
      )}
    </ul>
  </nav>`;
}

function AreaPage({ area, view }) {
  const { page, views = {} } = AREAS[area];
  const pages = { ...(page ? { main: ["Work", page] } : {}), ...views };
  const tabs = [...Object.entries(pages).map(([name, [label]]) => [name, label]), ["audit", "Audit trail"]];
  const shown = view in pages ? view : "audit";
  const Page = pages[shown]?.[1];
  return html`<section aria-labelledby="area-title">
    <h1 id="area-title">${AREAS[area].title}</h1>
    <p class="tabs">
      ${tabs.map(
        ([name, label]) =>
          html`<a href="#/${area}/${name}" aria-current=${shown === name ? "page" : undefined}>${label}</a> `,
      )}
    </p>
    ${Page ? html`<${Page} key=${shown} />` : html`<${AuditPage} area=${area} />`}
  </section>`;
}

function Console() {
  const [me, setMe] = useState(null);
  const [problem, setProblem] = useState(null);
  const [route, setRoute] = useState(currentRoute());

  useEffect(() => {
    const follow = () => setRoute(currentRoute());
    addEventListener("hashchange", follow);
    completeSignIn()
      .then((signedIn) => (signedIn ? api("/staff/me.json").then(setMe) : setMe(false)))
      .catch((error) => setProblem(error.message));
    return () => removeEventListener("hashchange", follow);
  }, []);

  if (problem) {
    return html`<main><h1>Operator's console</h1><p role="alert">${problem}</p>
      <button onClick=${signIn}>Sign in again</button></main>`;
  }
  if (me === null) return html`<main><p>Loading…</p></main>`;
  if (me === false) {
    return html`<main class="sign-in"><h1>Operator's console</h1>
      <p>Staff of the platform sign in with their account.</p>
      <button onClick=${signIn}>Sign in</button></main>`;
  }
  const area = me.areas.includes(route.area) ? route.area : me.areas[0];
  return html`<header>
      <p class="brand">Operator's console</p>
      <p>Signed in as <strong>${me.name}</strong> <button class="secondary" onClick=${signOut}>Sign out</button></p>
    </header>
    <${Navigation} me=${me} route=${{ ...route, area }} />
    <main><${AreaPage} key=${area} area=${area} view=${route.view} /></main>`;
}

render(html`<${Console} />`, document.getElementById("console"));
