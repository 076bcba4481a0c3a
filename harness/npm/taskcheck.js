#!/usr/bin/env node
// Launcher of the npm package mcp-taskcheck: runs the taskcheck binary the package carries
// (native/taskcheck, built for the platform in package.json's "os" and "cpu") with the same
// arguments, standard streams and exit status. Nothing is downloaded, at install or at run time.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

const binary = path.join(__dirname, "..", "native", process.platform === "win32" ? "taskcheck.exe" : "taskcheck");
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });

// a signal sent to the launcher (Ctrl-C, a CI timeout) reaches taskcheck, which then stops what
// it spawned and still writes its report
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (err) => {
  console.error(`taskcheck: cannot run ${binary}: ${err.message}`);
  process.exit(3);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // end the way taskcheck ended, so the caller sees the same signal
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
