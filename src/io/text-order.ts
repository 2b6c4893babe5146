/**
 * Orders and number formats for names ctl prints, without ICU. The first `localeCompare`,
 * `Intl.Collator` or `toLocaleString` of a process initialises ICU's collation or number data:
 * 5-9 ms on Node 22 and 24, measured in a fresh process (issue 39), which a plan of 10 databases
 * paid once to sort three pod names. What ctl sorts are Kubernetes names (lowercase letters,
 * digits, `-`, `.`, and `/` between namespace and name), for which the order of their code units
 * is the order ICU's root collation gives them: `-` < `.` < `/` < digits < letters.
 */

/** Code-unit order: `localeCompare` without its cost, the same order for Kubernetes names. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Numbers inside names by their value (`rec-2` before `rec-10`), everything else by code unit:
 * what `localeCompare(b, 'en', { numeric: true })` gives Kubernetes names.
 */
export function compareNatural(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(j);
    if (isDigit(x) && isDigit(y)) {
      let endA = i;
      let endB = j;
      while (endA < a.length && isDigit(a.charCodeAt(endA))) endA++;
      while (endB < b.length && isDigit(b.charCodeAt(endB))) endB++;
      const byValue = compareDigits(a.slice(i, endA), b.slice(j, endB));
      if (byValue !== 0) return byValue;
      i = endA;
      j = endB;
      continue;
    }
    if (x !== y) return x - y;
    i++;
    j++;
  }
  return a.length - i - (b.length - j) || compareText(a, b);
}

/** Two runs of digits by value, of any length (no Number overflow): `007` equals `7` here. */
function compareDigits(x: string, y: string): number {
  const a = x.replace(/^0+(?=\d)/, '');
  const b = y.replace(/^0+(?=\d)/, '');
  return a.length - b.length || compareText(a, b);
}

/** `2990` -> `2,990`: `toLocaleString('en-US')` for integers, without its cost. */
export function groupThousands(count: number): string {
  const text = String(Math.trunc(Math.abs(count)));
  const grouped = text.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return count < 0 ? `-${grouped}` : grouped;
}
