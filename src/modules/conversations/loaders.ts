import type { Context } from '../../context.js';
import { batched, perRequest } from '../../loaders.js';

export const PULSE_WEEKS = 13;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export interface ClusterTasks {
  tasksTotal: number;
  tasksBacklog: number;
  tasksStarted: number;
  tasksCompleted: number;
  tasksCancelled: number;
}

/**
 * A cluster's tasks are the change requests linked to it (ChangeRequest.conversationsIssuesCluster):
 * draft ones are in the backlog, open ones started, merged ones completed, archived ones cancelled.
 */
const TASK_OF_STATUS: Record<string, keyof ClusterTasks> = {
  draft: 'tasksBacklog',
  open: 'tasksStarted',
  merged: 'tasksCompleted',
  archived: 'tasksCancelled',
};
const NO_TASKS: ClusterTasks = { tasksTotal: 0, tasksBacklog: 0, tasksStarted: 0, tasksCompleted: 0, tasksCancelled: 0 };

/**
 * Per-request loaders of what clusters compute from their issues and change requests: one query per
 * page of clusters for each, whatever the number of clusters.
 */
export const clusterLoaders = perRequest((ctx: Context) => {
  const now = Date.now();
  return {
    /** Issues per week for the last 13 weeks, oldest first; the last entry is the 7 days up to now. */
    weeklyPulse: batched<string, number[]>(async (ids) => {
      const since = new Date(now - PULSE_WEEKS * WEEK_MS);
      const rows = await ctx.prisma.$queryRaw<{ clusterId: string; week: number; count: number }[]>`
        SELECT "clusterId", floor(extract(epoch FROM (${new Date(now)}::timestamp - "createdAt")) * 1000 / ${WEEK_MS})::int AS week, count(*)::int AS count
        FROM "ConversationIssue"
        WHERE "clusterId" = ANY(${ids}::text[]) AND "createdAt" > ${since}::timestamp AND "createdAt" <= ${new Date(now)}::timestamp
        GROUP BY 1, 2`;
      const out = new Map(ids.map((id) => [id, Array.from({ length: PULSE_WEEKS }, () => 0)]));
      for (const row of rows) if (row.week >= 0 && row.week < PULSE_WEEKS) out.get(row.clusterId)![PULSE_WEEKS - 1 - row.week] = row.count;
      return out;
    }, []),
    /** Issues per conversation source. */
    sources: batched<string, Record<string, number>>(async (ids) => {
      const rows = await ctx.prisma.$queryRaw<{ clusterId: string; source: string; count: number }[]>`
        SELECT i."clusterId", c.source, count(*)::int AS count
        FROM "ConversationIssue" i JOIN "Conversation" c ON c.id = i."conversationId"
        WHERE i."clusterId" = ANY(${ids}::text[])
        GROUP BY 1, 2 ORDER BY 2`;
      const out = new Map<string, Record<string, number>>(ids.map((id) => [id, {}]));
      for (const row of rows) out.get(row.clusterId)![row.source] = row.count;
      return out;
    }, {}),
    tasks: batched<string, ClusterTasks>(async (ids) => {
      const rows = await ctx.prisma.changeRequest.groupBy({
        by: ['conversationsIssuesCluster', 'status'],
        where: { conversationsIssuesCluster: { in: ids } },
        _count: { _all: true },
      });
      const out = new Map<string, ClusterTasks>(ids.map((id) => [id, { ...NO_TASKS }]));
      for (const row of rows) {
        const tasks = out.get(row.conversationsIssuesCluster!)!;
        tasks.tasksTotal += row._count._all;
        const kind = TASK_OF_STATUS[row.status];
        if (kind) tasks[kind] += row._count._all;
      }
      return out;
    }, NO_TASKS),
  };
});
