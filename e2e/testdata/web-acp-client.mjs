// web-acp-client.mjs is a real ACP client on the web door: the pinned
// @agentclientprotocol/sdk's client app over the SDK's own WebSocket stream
// (createWebSocketStream, exported as
// @agentclientprotocol/sdk/experimental/ws-client), run by
// e2e/web_sdk_test.go as
//
//	node --experimental-websocket web-acp-client.mjs PEERS WS_URL PROJECT
//
// PEERS is the folder holding the installed peers' node_modules (.peers),
// WS_URL the door's ws://127.0.0.1:PORT/acp and PROJECT the folder the
// session works in. The token comes in the environment variable
// ACPMUX_WEB_TOKEN, never on the command line, where any user's ps shows
// it. It authenticates as a non-browser client does: the header
// "Authorization: Bearer TOKEN" on the upgrade, and no Origin header (Node's
// WebSocket sends none).
//
// On one connection: initialize, session/new in PROJECT, session/prompt
// "hello", the agent's reply gathered from session/update. On a second:
// initialize, session/load of the same session, which replays the
// conversation. It prints one JSON line, {sessionId, reply, replayedUser,
// replayedAgent}, and exits 0; on any failure it says why on stderr and
// exits 1.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [peers, wsURL, project] = process.argv.slice(2);
const token = process.env.ACPMUX_WEB_TOKEN;
if (!peers || !wsURL || !project || !token) {
  console.error("usage: ACPMUX_WEB_TOKEN=TOKEN node --experimental-websocket web-acp-client.mjs PEERS WS_URL PROJECT");
  process.exit(2);
}
if (typeof globalThis.WebSocket !== "function") {
  console.error("this node has no global WebSocket (Node 20 needs --experimental-websocket)");
  process.exit(2);
}

// The SDK is resolved from PEERS through its package's exports map, as an
// import from a package in PEERS would resolve it.
const require = createRequire(path.join(peers, "package.json"));
const load = (spec) => import(pathToFileURL(require.resolve(spec)).href);
const acp = await load("@agentclientprotocol/sdk");
const { createWebSocketStream } = await load("@agentclientprotocol/sdk/experimental/ws-client");

// The SDK hands a WebSocket constructor (url, protocols, {headers}), the
// shape of the `ws` package's. Node's own WebSocket (undici) ignores a third
// argument but takes headers in its second, new WebSocket(url, {protocols,
// headers}), and sends them on the upgrade; this adapts one to the other.
class HeaderWebSocket extends globalThis.WebSocket {
  constructor(url, protocols, options) {
    super(url, { protocols: protocols ?? [], headers: options?.headers ?? {} });
  }
}

// open connects a client app on a fresh WebSocket and runs op with the
// agent's context; updates get every session/update's params.
async function open(updates, op) {
  const stream = createWebSocketStream(wsURL, {
    WebSocket: HeaderWebSocket,
    headers: { Authorization: `Bearer ${token}` },
    cookies: "omit",
  });
  const app = acp
    .client({ name: "web-acp-client" })
    .onNotification("session/update", (ctx) => {
      updates.push(ctx.params);
    })
    .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }));
  return app.connectWith(stream, async (agent) => {
    const init = await agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "web-acp-client", version: "1" },
    });
    return op(agent, init);
  });
}

// texts are the text of the chunks of one kind of update, in order.
function texts(updates, sessionId, kind) {
  return updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
    .map((n) => n.update.content)
    .filter((c) => c && c.type === "text")
    .map((c) => c.text);
}

try {
  const first = [];
  const sessionId = await open(first, async (agent) => {
    const created = await agent.request("session/new", { cwd: project, mcpServers: [] });
    const turn = await agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    if (turn.stopReason !== "end_turn") {
      throw new Error(`session/prompt stopped with ${turn.stopReason}`);
    }
    return created.sessionId;
  });

  const second = [];
  await open(second, async (agent, init) => {
    if (!init.agentCapabilities?.loadSession) {
      throw new Error("initialize on the second connection does not offer session/load");
    }
    await agent.request("session/load", { sessionId, cwd: project, mcpServers: [] });
  });

  const line = JSON.stringify({
    sessionId,
    reply: texts(first, sessionId, "agent_message_chunk").join(""),
    replayedUser: texts(second, sessionId, "user_message_chunk"),
    replayedAgent: texts(second, sessionId, "agent_message_chunk"),
  });
  process.stdout.write(line + "\n", () => process.exit(0));
} catch (err) {
  // A refused upgrade (a wrong token, a foreign Origin or Host) reaches
  // the stream as the WebSocket's ErrorEvent, not as an Error.
  const why = err instanceof Error ? err.stack : `the WebSocket failed: ${err?.message || err?.error?.message || err?.type || err}`;
  console.error("web-acp-client:", why);
  process.exit(1);
}
