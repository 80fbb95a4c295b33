// reverie serve, as this plugin reaches it: the Unix socket <home>/run/serve.sock (or the one
// serve.json names), else its URL on 127.0.0.1, with the bearer token of <home>/run/token. Every
// failure is a ReverieError whose message says, in one line, what to do about it.

import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export type ReverieConfig = {
  home?: string;
  agent?: string;
  url?: string;
  timeoutMs?: number;
};

export class ReverieError extends Error {
  status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "ReverieError";
    this.status = status;
  }
}

type ServeInfo = { pid?: number; url?: string; socket?: string; token?: string };

/** reverie's home as the plugin's config, $REVERIE_HOME or the default names it. */
export function resolveHome(config: ReverieConfig, env: NodeJS.ProcessEnv = process.env): string {
  const raw = config.home || env.REVERIE_HOME || join(homedir(), ".reverie");
  return resolve(raw.startsWith("~/") ? join(homedir(), raw.slice(2)) : raw);
}

function readServeInfo(home: string): ServeInfo | undefined {
  try {
    return JSON.parse(readFileSync(join(home, "run", "serve.json"), "utf8")) as ServeInfo;
  } catch {
    return undefined;
  }
}

function readToken(home: string, info: ServeInfo | undefined): string | undefined {
  try {
    const token = readFileSync(join(home, "run", "token"), "utf8").trim();
    if (token) return token;
  } catch {
    // not made yet: a server that runs has put it in serve.json too
  }
  return info?.token;
}

export class ReverieClient {
  readonly home: string;
  readonly timeoutMs: number;
  private readonly url: string | undefined;

  constructor(config: ReverieConfig = {}, env: NodeJS.ProcessEnv = process.env) {
    this.home = resolveHome(config, env);
    this.url = config.url;
    this.timeoutMs = config.timeoutMs && config.timeoutMs > 0 ? config.timeoutMs : 20000;
  }

  private where(): { socketPath?: string; host?: string; port?: number; label: string; token: string } {
    const info = readServeInfo(this.home);
    const token = readToken(this.home, info);
    const start = `start it with: reverie --home ${this.home} serve`;
    if (!token) {
      throw new ReverieError(`reverie serve has never run for the home ${this.home} (no token in ` +
        `${join(this.home, "run", "token")}): ${start}`);
    }
    if (this.url) {
      const u = new URL(this.url);
      return { host: u.hostname, port: Number(u.port || 80), label: this.url, token };
    }
    const socket = info?.socket || join(this.home, "run", "serve.sock");
    if (existsSync(socket)) return { socketPath: socket, label: socket, token };
    if (info?.url) {
      const u = new URL(info.url);
      return { host: u.hostname, port: Number(u.port || 80), label: info.url, token };
    }
    throw new ReverieError(`reverie serve is not running for the home ${this.home} (no socket at ${socket}): ${start}`);
  }

  /** POST a JSON object to reverie serve; the answer's JSON, or a ReverieError. */
  async post(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<any> {
    const to = this.where();
    const data = Buffer.from(JSON.stringify({ ...body, home: this.home }));
    const start = `start it with: reverie --home ${this.home} serve`;
    return await new Promise((resolvePost, reject) => {
      const req = request({
        socketPath: to.socketPath, host: to.host, port: to.port, method: "POST", path,
        headers: {
          host: "127.0.0.1", authorization: `Bearer ${to.token}`, "content-type": "application/json",
          "content-length": String(data.length),
        },
        timeout: this.timeoutMs, signal,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = { error: text.trim().split("\n")[0] };
          }
          const status = res.statusCode ?? 0;
          if (status === 200) return resolvePost(parsed);
          const said = parsed?.error || `HTTP ${status}`;
          if (status === 401) {
            return reject(new ReverieError(`reverie serve at ${to.label} refused the token of ${this.home} (` +
              `it serves another home, or the token changed): ${said}`, status));
          }
          reject(new ReverieError(`reverie serve at ${to.label}: ${said}`, status));
        });
      });
      req.on("timeout", () => req.destroy(new ReverieError(`reverie serve at ${to.label} did not answer ` +
        `within ${this.timeoutMs} ms`)));
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (err instanceof ReverieError) return reject(err);
        if (err.code === "ECONNREFUSED" || err.code === "ENOENT") {
          return reject(new ReverieError(`reverie serve is not running for the home ${this.home} (${to.label} ` +
            `refused the connection): ${start}`));
        }
        reject(new ReverieError(`reverie serve at ${to.label}: ${err.message}`));
      });
      req.end(data);
    });
  }
}
