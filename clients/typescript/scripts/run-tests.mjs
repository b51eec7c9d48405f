// `npm test`: node --test over the built tests, with the WebSocket global the socket tests need
// (Node 22 has it; Node 20 behind --experimental-websocket).
import { spawnSync } from "node:child_process";

const flags = typeof globalThis.WebSocket === "undefined" ? ["--experimental-websocket"] : [];
const run = spawnSync(process.execPath, [...flags, "--test", "build-test/test/"], { stdio: "inherit" });
process.exit(run.status ?? 1);
