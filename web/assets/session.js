// Signing in. The address `acpmux-tui web` prints carries the token in its
// fragment (#token=…), which a browser never sends to a server. The page
// takes it out of the address bar and the history at once, then trades it
// for the session cookie (POST /session): HttpOnly, so no script of the
// page sees it again, and it lets the WebSocket in. Without a token the
// page tries the cookie it may have; rpc.js finds out when it has none.

// signInHint is all a signed-out page shows.
export const signInHint = "Run `acpmux-tui web` in a terminal to get this page's address with its token.";

// takeToken reads #token=… and removes it from the address and the
// history: the entry is replaced, not added to.
export function takeToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (token === null) {
    return null;
  }
  history.replaceState(null, "", location.pathname + location.search);
  return token;
}

// signIn trades the token for the session cookie; it answers "ok",
// "refused" (a wrong or old token) or "unreachable".
export async function signIn(token) {
  try {
    const r = await fetch("/session", {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
    });
    if (r.ok) return "ok";
    return r.status === 401 || r.status === 400 ? "refused" : "unreachable";
  } catch {
    return "unreachable";
  }
}
