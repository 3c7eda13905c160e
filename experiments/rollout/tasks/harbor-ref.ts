/** The task-set name a spec's `rollout.tasks: {source: harbor, path: DIR}` is carried as (`harbor:DIR`). */
export const HARBOR_TASKS_PREFIX = 'harbor:';

/** The directory of a `harbor:DIR` task-set name, or null for any other name. */
export function harborTasksPath(ref: string): string | null {
  return ref.startsWith(HARBOR_TASKS_PREFIX) ? ref.slice(HARBOR_TASKS_PREFIX.length) : null;
}
