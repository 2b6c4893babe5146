// The package.json that ctl ships (in `npm pack`'s tarball and in a release tag's commit): what
// an installed ctl needs (name, version, bin, engines, files, type, licence and the registry's
// descriptive fields), without the scripts (`prepare` would make npm build an installed package,
// which needs the development dependencies) and without the development dependencies (npm warns
// about them on every install that runs no scripts).
const SHIPPED = [
  'name',
  'version',
  'description',
  'keywords',
  'license',
  'repository',
  'type',
  'bin',
  'engines',
  'files',
];

/** The shipped manifest of the checkout's parsed package.json, as the text of a file. */
export function shippedManifest(full) {
  const shipped = Object.fromEntries(SHIPPED.filter((key) => key in full).map((key) => [key, full[key]]));
  return `${JSON.stringify(shipped, null, 2)}\n`;
}
