/** Test files (relative to the project root) whose imports never reach a database connection. */
export function dbFreeTests(): string[];
