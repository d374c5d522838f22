import { z } from "zod";

/**
 * `channels.<name>.apiBaseUrl`, the same for every channel: the platform's API host (scheme,
 * host, optional port and proxy prefix), to which the channel adds its own API path. So the
 * four defaults all read as bare hosts. A value that already ends with the API path (how Slack
 * and Discord took it before) is kept as it is, so existing clawrun.json files keep working.
 * `otherPath` matches a path the channel cannot speak (another API version): refused with a
 * message, rather than doubled into a URL that only fails at the first reply.
 */
export function apiBaseUrlSchema(o: { host: string; apiPath?: string; otherPath?: RegExp }) {
  const apiPath = o.apiPath ?? "";
  const trim = (u: string) => u.replace(/\/+$/, "");
  return z
    .url({ error: "expected an http(s) URL" })
    .default(o.host)
    .refine((u) => !o.otherPath || trim(u).endsWith(apiPath) || !o.otherPath.test(trim(u)), {
      error: `expected the API host only, such as ${o.host} (ClawRun adds ${apiPath} itself)`,
    })
    .transform((u) => {
      const base = trim(u);
      return apiPath === "" || base.endsWith(apiPath) ? base : `${base}${apiPath}`;
    });
}
