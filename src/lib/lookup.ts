/**
 * Looks `key` up in a table of constants keyed by strings that come from outside (content types, file
 * extensions, plan names). A plain object answers `constructor`, `toString` or `__proto__` with what it
 * inherits from Object.prototype; this answers only the table's own entries.
 */
export function lookup<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
