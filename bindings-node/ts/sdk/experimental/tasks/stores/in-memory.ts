/**
 * `ferromcp/experimental/tasks/stores/in-memory.js`: the TypeScript SDK's in-memory task store
 * and task message queue, for code that keeps its own tasks (the SDK's examples make one for
 * the client side). ferromcp's servers keep their tasks in the engine (`registerTool` with
 * `execution.taskSupport`); these are plain data structures with the SDK's behaviour: a task
 * starts `working`, is dropped `ttl` ms after creation or after it ends, takes one result, and
 * a task's session (when given) must match.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { type CreateTaskOptions, isTerminal, type QueuedMessage, type Task, type TaskMessageQueue, type TaskStore } from '../interfaces';

interface Entry {
  task: Task;
  request: unknown;
  requestId: string | number;
  sessionId: string | undefined;
  result?: unknown;
}

/** Tasks kept in this process (see the module's notes). */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Entry>();
  readonly #timers = new Map<string, NodeJS.Timeout>();

  #find(taskId: string, sessionId: string | undefined): Entry | undefined {
    const e = this.#tasks.get(taskId);
    if (!e) return undefined;
    if (sessionId !== undefined && e.sessionId !== undefined && e.sessionId !== sessionId) return undefined;
    return e;
  }

  #get(taskId: string, sessionId: string | undefined): Entry {
    const e = this.#find(taskId, sessionId);
    if (!e) throw new Error(`Task with ID ${taskId} not found`);
    return e;
  }

  /** Drops the task `ttl` ms from now (replacing an earlier deadline). */
  #expireIn(taskId: string, ttl: number | null): void {
    if (!ttl) return;
    clearTimeout(this.#timers.get(taskId));
    const timer = setTimeout(() => {
      this.#tasks.delete(taskId);
      this.#timers.delete(taskId);
    }, ttl);
    timer.unref?.();
    this.#timers.set(taskId, timer);
  }

  async createTask(taskParams: CreateTaskOptions, requestId: string | number, request: unknown, sessionId?: string): Promise<Task> {
    const taskId = randomBytes(16).toString('hex');
    const now = new Date().toISOString();
    const task: Task = {
      taskId,
      status: 'working',
      ttl: taskParams.ttl ?? null,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: taskParams.pollInterval ?? 1000,
    };
    this.#tasks.set(taskId, { task, request, requestId, sessionId });
    this.#expireIn(taskId, task.ttl);
    return { ...task };
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const e = this.#find(taskId, sessionId);
    return e ? { ...e.task } : null;
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: unknown, sessionId?: string): Promise<void> {
    const e = this.#get(taskId, sessionId);
    if (isTerminal(e.task.status)) {
      throw new Error(`Cannot store result for task ${taskId} in terminal status '${e.task.status}'. Task results can only be stored once.`);
    }
    e.result = result;
    e.task.status = status;
    e.task.lastUpdatedAt = new Date().toISOString();
    this.#expireIn(taskId, e.task.ttl);
  }

  async getTaskResult(taskId: string, sessionId?: string): Promise<unknown> {
    const e = this.#get(taskId, sessionId);
    if (e.result === undefined) throw new Error(`Task ${taskId} has no result stored`);
    return e.result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    const e = this.#get(taskId, sessionId);
    if (isTerminal(e.task.status)) {
      throw new Error(`Cannot update task ${taskId} from terminal status '${e.task.status}' to '${status}'. Terminal states (completed, failed, cancelled) cannot transition to other states.`);
    }
    e.task.status = status;
    if (statusMessage) e.task.statusMessage = statusMessage;
    e.task.lastUpdatedAt = new Date().toISOString();
    if (isTerminal(status)) this.#expireIn(taskId, e.task.ttl);
  }

  /** Ten tasks a page; the cursor is the last task id of the previous page. */
  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const ids = [...this.#tasks.keys()].filter((id) => this.#find(id, sessionId));
    let start = 0;
    if (cursor) {
      const at = ids.indexOf(cursor);
      if (at < 0) throw new Error(`Invalid cursor: ${cursor}`);
      start = at + 1;
    }
    const page = ids.slice(start, start + 10);
    const tasks = page.map((id) => ({ ...this.#tasks.get(id)!.task }));
    return start + 10 < ids.length ? { tasks, nextCursor: page[page.length - 1]! } : { tasks };
  }

  /** Forgets every task and stops the expiry timers. */
  cleanup(): void {
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    this.#tasks.clear();
  }

  /** Every task (copies). */
  getAllTasks(): Task[] {
    return [...this.#tasks.values()].map((e) => ({ ...e.task }));
  }
}

/** Messages per task, first in first out (see the module's notes). */
export class InMemoryTaskMessageQueue implements TaskMessageQueue {
  readonly #queues = new Map<string, QueuedMessage[]>();

  async enqueue(taskId: string, message: QueuedMessage, _sessionId?: string, maxSize?: number): Promise<void> {
    const q = this.#queues.get(taskId) ?? [];
    if (maxSize !== undefined && q.length >= maxSize) {
      throw new Error(`Task message queue overflow: queue size (${q.length}) exceeds maximum (${maxSize})`);
    }
    q.push(message);
    this.#queues.set(taskId, q);
  }

  async dequeue(taskId: string, _sessionId?: string): Promise<QueuedMessage | undefined> {
    return this.#queues.get(taskId)?.shift();
  }

  async dequeueAll(taskId: string, _sessionId?: string): Promise<QueuedMessage[]> {
    const q = this.#queues.get(taskId) ?? [];
    this.#queues.delete(taskId);
    return q;
  }
}
