/**
 * A dry run says so on every line (issue 36 item 5). The steps announce each change as it is
 * made ("setting versionTag of rec/rec ...", "applying 8 objects of ..."); in a dry run nothing
 * is made, so the announcement is worded as what would be done ("would set versionTag ..."),
 * and under `--dry-run=server` it also says that the server judges it. The steps keep one
 * wording each: the run engine rewrites their progress lines here, in one place.
 */

/** The verbs the steps announce a change with, and their conditional form. */
const CHANGE_VERBS: Record<string, string> = {
  setting: 'set',
  applying: 'apply',
  're-applying': 're-apply',
  deleting: 'delete',
  approving: 'approve',
  uploading: 'upload',
  binding: 'bind',
  unbinding: 'unbind',
  removing: 'remove',
  creating: 'create',
  patching: 'patch',
  upgrading: 'upgrade',
  switching: 'switch',
  'helm upgrade': 'run helm upgrade',
};

/** `--dry-run=server`: the mark on every line that announces a change. */
export const SERVER_DRY_RUN_MARK = '(server dry run)';

// An optional lead-in such as "redis/cache: " or "the cluster has rolled: ", then the verb.
const ANNOUNCEMENT = new RegExp(
  `^((?:[^:]*: )?)(${Object.keys(CHANGE_VERBS)
    .sort((a, b) => b.length - a.length)
    .map((verb) => verb.replace(/[-]/g, '\\-'))
    .join('|')})\\b(.*)$`,
  's',
);

/**
 * The dry run's wording of a step's progress line: a change it announces becomes "would ...",
 * marked "(server dry run)" under `--dry-run=server`; any other line (what was read, found or
 * skipped) is kept as it is.
 */
export function dryRunWording(message: string, mode: 'client' | 'server'): string {
  const match = ANNOUNCEMENT.exec(message);
  if (!match) return message;
  const [, lead = '', verb = '', rest = ''] = match;
  const worded = `${lead}would ${CHANGE_VERBS[verb] ?? verb}${rest}`;
  return mode === 'server' ? `${worded} ${SERVER_DRY_RUN_MARK}` : worded;
}
