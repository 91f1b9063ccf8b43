// Sign-in: the console is a public OAuth client of the auth service (authorization code with PKCE, S256, through
// the auth service's own login page). The tokens live in this module's memory only: a reload signs in again. Only the
// PKCE verifier and the state survive the trip to the login page, in sessionStorage, and are removed on return.

const STAFF_SCOPES = [
  "launcher_moderation",
  "guide_editing",
  "channels_engineering",
  "niche_content_operations",
  "registry_maintenance",
];
const PENDING = "console.sign-in"; // sessionStorage key of the verifier and state while at the login page

// The API's base: the console is served at <base>/console/ (in AWS <base> is the stage, /v1).
export const apiBase = location.pathname.replace(/\/console\/.*$/, "");
const redirectUri = `${location.origin}${apiBase}/console/`;

let tokens = null; // {access, refresh, expiresAt}

function base64url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function randomText() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function clientId() {
  const reply = await fetch(`${apiBase}/console/config.json`, { cache: "no-store" });
  return (await reply.json()).clientId;
}

// Off to the login page; it comes back to /console/?code=…&state=….
export async function signIn() {
  const verifier = randomText();
  const state = randomText();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const query = new URLSearchParams({
    response_type: "code",
    client_id: await clientId(),
    redirect_uri: redirectUri,
    scope: ["account", ...STAFF_SCOPES].join(" "),
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  location.assign(`${apiBase}/auth/2/authorize?${query}`);
}

async function tokenRequest(form) {
  const reply = await fetch(`${apiBase}/auth/2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: await clientId(), ...form }),
  });
  const answer = await reply.json();
  if (!reply.ok) throw new Error(answer.error_description || answer.error || `sign-in failed (${reply.status})`);
  tokens = {
    access: answer.access_token,
    refresh: answer.refresh_token,
    expiresAt: Date.now() + (answer.expires_in - 30) * 1000,
  };
}

// On return from the login page: the code exchanged for tokens (once), the address cleaned. False: not signed in.
export async function completeSignIn() {
  const query = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, "", `${apiBase}/console/${location.hash}`);
  if (query.get("error")) throw new Error(query.get("error_description") || query.get("error"));
  if (!query.get("code") || !pending) return false;
  if (query.get("state") !== pending.state) throw new Error("the sign-in came back with another state: sign in again");
  await tokenRequest({
    grant_type: "authorization_code",
    code: query.get("code"),
    redirect_uri: redirectUri,
    code_verifier: pending.verifier,
  });
  return true;
}

// Sign-out ends the sign-in at the auth service (RFC 7009: revoking the refresh token revokes its whole family,
// the live access token included), not only in this tab: a copied refresh token is worth nothing afterwards.
export async function signOut() {
  const refresh = tokens?.refresh;
  tokens = null;
  if (refresh) {
    try {
      await fetch(`${apiBase}/auth/2/revoke`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_id: await clientId(), token: refresh, token_type_hint: "refresh_token" }),
      });
    } catch {
      // Offline: the sign-in ends with its idle lifetime (two hours for staff).
    }
  }
  location.assign(`${apiBase}/console/`);
}

async function accessToken() {
  if (tokens && Date.now() > tokens.expiresAt && tokens.refresh) {
    await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh });
  }
  return tokens?.access;
}

export class ApiError extends Error {
  constructor(status, answer) {
    super(answer.error_description || answer.error || `HTTP ${status}`);
    this.status = status;
  }
}

// A staff route: JSON in and out, the bearer token from memory. `body` is sent as JSON, or as it is when a string.
export async function api(path, { method = "GET", query, body, contentType } = {}) {
  const url = `${apiBase}${path}${query ? `?${new URLSearchParams(query)}` : ""}`;
  const headers = { Authorization: `Bearer ${await accessToken()}`, Accept: "application/json" };
  let sent = body;
  if (body !== undefined && typeof body !== "string") {
    sent = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    headers["Content-Type"] = contentType || "text/plain";
  }
  const reply = await fetch(url, { method, headers, body: sent, cache: "no-store" });
  const answer = reply.status === 204 ? {} : await reply.json();
  if (!reply.ok) throw new ApiError(reply.status, answer);
  return answer;
}
