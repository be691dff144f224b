// The REST route table in use: the module registry (src/modules/index.ts) hands over every module's
// routes when it is installed; this file only holds them (it imports no module).
import type { RestRoute } from './route.js';

/** A live binding: set by useRoutes, which installModules calls before serving. */
export let routes: RestRoute[] = [];

export function useRoutes(list: RestRoute[]) {
  routes = list;
}
