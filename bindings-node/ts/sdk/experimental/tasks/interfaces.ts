/**
 * `ferromcp/experimental/tasks/interfaces.js`: the TypeScript SDK's task store interfaces
 * (what `InMemoryTaskStore` implements, what a custom store implements) and `isTerminal`.
 * @module
 */

/** A task's state (2025-11-25 tasks). */
export interface Task {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  /** Retention after creation, ms (null: unlimited). */
  ttl: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  /** Suggested polling interval, ms. */
  pollInterval?: number;
}

/** What a new task is created with. */
export interface CreateTaskOptions {
  ttl?: number | null;
  pollInterval?: number;
  [key: string]: unknown;
}

/** A message queued for delivery with a task's `tasks/result` (the SDK's shape). */
export interface QueuedMessage {
  type: 'request' | 'notification' | 'response' | 'error';
  message: unknown;
  timestamp: number;
  [key: string]: unknown;
}

/** Where tasks and their results live (the SDK's `TaskStore`). */
export interface TaskStore {
  createTask(taskParams: CreateTaskOptions, requestId: string | number, request: unknown, sessionId?: string): Promise<Task>;
  getTask(taskId: string, sessionId?: string): Promise<Task | null>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: unknown, sessionId?: string): Promise<void>;
  getTaskResult(taskId: string, sessionId?: string): Promise<unknown>;
  updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void>;
  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
}

/** Messages waiting for a task's `tasks/result` (the SDK's `TaskMessageQueue`). */
export interface TaskMessageQueue {
  enqueue(taskId: string, message: QueuedMessage, sessionId?: string, maxSize?: number): Promise<void>;
  dequeue(taskId: string, sessionId?: string): Promise<QueuedMessage | undefined>;
  dequeueAll(taskId: string, sessionId?: string): Promise<QueuedMessage[]>;
}

/** Whether a task in `status` has ended (`completed`, `failed` or `cancelled`). */
export function isTerminal(status: Task['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
