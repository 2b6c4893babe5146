/** `7.2` < `7.4` < `8.0`: database versions, compared by their numbers. */
export function compareDatabaseVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}
