/**
 * At most `limit` holders of a host's slot at once in this process (crawls
 * of a web host, SMTP probe connections to a mail host); the others wait
 * their turn, first come first served.
 */
export function createHostSlots(limit: () => number) {
  const active = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();

  const release = (host: string) => {
    const next = waiting.get(host)?.shift();
    if (next) return next();
    const count = (active.get(host) ?? 1) - 1;
    if (count > 0) active.set(host, count);
    else active.delete(host);
  };

  return async function acquire(host: string): Promise<() => void> {
    const key = host.toLowerCase();
    if ((active.get(key) ?? 0) < limit()) active.set(key, (active.get(key) ?? 0) + 1);
    else await new Promise<void>((resume) => waiting.set(key, [...(waiting.get(key) ?? []), resume]));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release(key);
    };
  };
}
