/**
 * A list printed for people is capped: a PackageManifest or a helm index from outside may name
 * thousands of releases (issue 35: 3,000 channels made 3,000 lines). The first `max` are shown,
 * then one line saying how many more there are; `-o json` keeps them all.
 */
import { groupThousands } from './text-order.js';

export const PRINTED_LIST_MAX = 10;

export function capList<T>(
  items: readonly T[],
  max: number = PRINTED_LIST_MAX,
): { shown: readonly T[]; more: number } {
  return items.length <= max
    ? { shown: items, more: 0 }
    : { shown: items.slice(0, max), more: items.length - max };
}

/** `and 2,990 more <what> (-o json lists them all)`. */
export function moreLine(more: number, what: string): string {
  return `and ${groupThousands(more)} more ${what} (-o json lists them all)`;
}
