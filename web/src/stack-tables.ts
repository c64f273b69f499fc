/*
 * On a phone the data tables become cards (styles.css, "Tables as cards"): each row a card, each cell a
 * line led by its column's name. CSS cannot read a header's text, so every cell of a data table (one
 * with column headers, outside the calendar and the heat map) gets its column's name as `data-label`,
 * whenever tables are drawn or redrawn.
 */
const TABLES = 'table:not(.heatmap)';

function label(root: ParentNode): void {
  for (const table of root.querySelectorAll<HTMLTableElement>(TABLES)) {
    if (table.closest('.calendar')) continue;
    const heads = [...table.querySelectorAll('thead th[scope="col"]')].map((th) => th.textContent?.trim() ?? '');
    if (!heads.length) continue;
    table.classList.add('stack');
    for (const row of table.tBodies[0]?.rows ?? []) {
      [...row.cells].forEach((cell, i) => {
        const name = heads[i] ?? '';
        if (cell.dataset.label !== name) cell.dataset.label = name;
      });
    }
  }
}

export function stackTables(root: HTMLElement): void {
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => ((queued = false), label(document)));
  }).observe(root, { childList: true, subtree: true });
}
