/**
 * A service against its floor measured before and after it. On a shared
 * machine one floor's rate moves by up to 40% from one minute to the next,
 * and a process's first run is still being compiled: a floor on each side
 * takes both out of the ratio. Every phase does the same work, so the
 * ratio of rates is the floors' mean time over the service's.
 */
export const againstFloors = (serviceSeconds: number, floorSeconds: [before: number, after: number]): number =>
  (floorSeconds[0] + floorSeconds[1]) / 2 / serviceSeconds;
