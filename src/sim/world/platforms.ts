/**
 * Which Kubernetes and OpenShift versions each operator release supports (and deprecates), as
 * the simulated world knows it: redis/docs `content/operate/kubernetes/reference/supported_k8s_distributions.md`
 * ("Version history" table; commit 63f31f69, 2026-08-21), whose rows pair each OpenShift
 * version with its Kubernetes version (4.22 with 1.35, ...; 1.36 has none yet). A column
 * stands for its release and the maintenance releases after it on the same line up to the
 * next column (the maintenance notes send readers to that release for "supported
 * distributions": e.g. 8.0.20-27 to 8.0.18-11, 8.2.0-18 to 8.2.0-12). The 8.2.0-12 column
 * matches the 8.2.0-12 notes (1.33-1.36 supported, 1.32 deprecated; OpenShift 4.22 added).
 * End-of-life marks are left out: a version neither supported nor deprecated is unsupported.
 */

export interface PlatformSupport {
  supported: readonly string[];
  deprecated: readonly string[];
}

export interface ReleasePlatforms {
  kubernetes: PlatformSupport;
  openshift: PlatformSupport;
}

/** Newest column first, as the table has them. */
export const PLATFORM_SUPPORT: readonly (readonly [
  operator: string,
  kubernetes: PlatformSupport,
  openshift: PlatformSupport,
])[] = [
  [
    '8.2.0-12',
    { supported: ['1.33', '1.34', '1.35', '1.36'], deprecated: ['1.32'] },
    { supported: ['4.20', '4.21', '4.22'], deprecated: ['4.19'] },
  ],
  [
    '8.0.20-21',
    { supported: ['1.33', '1.34', '1.35'], deprecated: ['1.31', '1.32'] },
    { supported: ['4.20', '4.21', '4.22'], deprecated: ['4.18', '4.19'] },
  ],
  [
    '8.0.18-11',
    { supported: ['1.33', '1.34', '1.35'], deprecated: ['1.31', '1.32'] },
    { supported: ['4.20', '4.21', '4.22'], deprecated: ['4.18', '4.19'] },
  ],
  [
    '8.0.10-15',
    { supported: ['1.33', '1.34', '1.35'], deprecated: ['1.31', '1.32'] },
    { supported: ['4.20', '4.21', '4.22'], deprecated: ['4.18', '4.19'] },
  ],
  [
    '8.0.6-6',
    { supported: ['1.33', '1.34'], deprecated: ['1.31', '1.32'] },
    { supported: ['4.20', '4.21'], deprecated: ['4.18', '4.19'] },
  ],
  [
    '8.0.2-2',
    { supported: ['1.32', '1.33', '1.34'], deprecated: ['1.31'] },
    { supported: ['4.19', '4.20', '4.21'], deprecated: ['4.18'] },
  ],
  [
    '7.22.2-21',
    { supported: ['1.31', '1.32', '1.33'], deprecated: ['1.30'] },
    { supported: ['4.18', '4.19', '4.20'], deprecated: ['4.17'] },
  ],
  [
    '7.22.0-15',
    { supported: ['1.31', '1.32', '1.33'], deprecated: ['1.30'] },
    { supported: ['4.18', '4.19', '4.20'], deprecated: ['4.17'] },
  ],
  [
    '7.22.0-7',
    { supported: ['1.30', '1.31', '1.32'], deprecated: [] },
    { supported: ['4.17', '4.18', '4.19'], deprecated: [] },
  ],
  [
    '7.8.6-1',
    { supported: ['1.30', '1.31', '1.32'], deprecated: ['1.28', '1.29'] },
    { supported: ['4.17', '4.18', '4.19'], deprecated: ['4.15', '4.16'] },
  ],
  [
    '7.8.4-9',
    { supported: ['1.28', '1.29', '1.30', '1.31'], deprecated: [] },
    { supported: ['4.15', '4.16', '4.17', '4.18'], deprecated: [] },
  ],
  [
    '7.8.4-8',
    { supported: ['1.28', '1.29', '1.30', '1.31'], deprecated: [] },
    { supported: ['4.15', '4.16', '4.17', '4.18'], deprecated: [] },
  ],
  [
    '7.8.2-6',
    { supported: ['1.28', '1.29', '1.30', '1.31'], deprecated: [] },
    { supported: ['4.15', '4.16', '4.17', '4.18'], deprecated: [] },
  ],
  [
    '7.4.6-2',
    { supported: ['1.27', '1.28', '1.29', '1.30'], deprecated: ['1.26'] },
    { supported: ['4.14', '4.15', '4.16', '4.17'], deprecated: ['4.13'] },
  ],
  [
    '7.4.2-12',
    { supported: ['1.27', '1.28', '1.29'], deprecated: ['1.26'] },
    { supported: ['4.14', '4.15', '4.16'], deprecated: ['4.13'] },
  ],
  [
    '7.4.2-2',
    { supported: ['1.27', '1.28', '1.29'], deprecated: ['1.26'] },
    { supported: ['4.14', '4.15', '4.16'], deprecated: ['4.13'] },
  ],
  [
    '7.2.4-12',
    { supported: ['1.24', '1.25', '1.26', '1.27', '1.28'], deprecated: [] },
    { supported: ['4.11', '4.12', '4.13', '4.14', '4.15'], deprecated: [] },
  ],
  [
    '7.2.4-7',
    { supported: ['1.24', '1.25', '1.26', '1.27'], deprecated: [] },
    { supported: ['4.11', '4.12', '4.13', '4.14'], deprecated: [] },
  ],
  [
    '7.2.4-2',
    { supported: ['1.24', '1.25', '1.26', '1.27'], deprecated: [] },
    { supported: ['4.11', '4.12', '4.13', '4.14'], deprecated: [] },
  ],
  [
    '6.4.2-8',
    { supported: ['1.24', '1.25', '1.26', '1.27'], deprecated: ['1.23'] },
    { supported: ['4.11', '4.12', '4.13', '4.14'], deprecated: ['4.10'] },
  ],
  [
    '6.4.2-6',
    { supported: ['1.24', '1.25', '1.26', '1.27'], deprecated: ['1.23'] },
    { supported: ['4.11', '4.12', '4.13', '4.14'], deprecated: ['4.10'] },
  ],
  [
    '6.4.2-5',
    { supported: ['1.23', '1.24', '1.25', '1.26'], deprecated: ['1.22'] },
    { supported: ['4.10', '4.11', '4.12', '4.13'], deprecated: ['4.9'] },
  ],
  [
    '6.4.2-4',
    { supported: ['1.23', '1.24', '1.25', '1.26'], deprecated: ['1.22'] },
    { supported: ['4.10', '4.11', '4.12', '4.13'], deprecated: ['4.9'] },
  ],
  [
    '6.2.18-41',
    { supported: ['1.22', '1.23', '1.24', '1.25'], deprecated: [] },
    { supported: ['4.9', '4.10', '4.11', '4.12'], deprecated: [] },
  ],
  [
    '6.2.18-3',
    { supported: ['1.22', '1.23', '1.24', '1.25'], deprecated: [] },
    { supported: ['4.9', '4.10', '4.11', '4.12'], deprecated: [] },
  ],
  [
    '6.2.12-1',
    { supported: ['1.22', '1.23', '1.24'], deprecated: [] },
    { supported: ['4.9', '4.10', '4.11'], deprecated: [] },
  ],
  [
    '6.2.10-45',
    { supported: ['1.22', '1.23', '1.24'], deprecated: ['1.21'] },
    { supported: ['4.9', '4.10', '4.11'], deprecated: ['4.8'] },
  ],
  [
    '6.2.10-34',
    { supported: ['1.21', '1.22', '1.23'], deprecated: ['1.19', '1.20'] },
    { supported: ['4.8', '4.9', '4.10'], deprecated: ['4.6', '4.7'] },
  ],
  [
    '6.2.10-4',
    { supported: ['1.18', '1.19', '1.20', '1.21', '1.22'], deprecated: [] },
    { supported: ['4.5', '4.6', '4.7', '4.8', '4.9'], deprecated: [] },
  ],
  [
    '6.2.8-15',
    { supported: ['1.18', '1.19', '1.20', '1.21', '1.22'], deprecated: [] },
    { supported: ['4.5', '4.6', '4.7', '4.8', '4.9'], deprecated: [] },
  ],
  [
    '6.2.8-11',
    { supported: ['1.18', '1.19', '1.20', '1.21', '1.22'], deprecated: [] },
    { supported: ['4.5', '4.6', '4.7', '4.8', '4.9'], deprecated: [] },
  ],
  [
    '6.2.8-2',
    { supported: ['1.18', '1.19', '1.20', '1.21'], deprecated: [] },
    { supported: ['4.5', '4.6', '4.7', '4.8'], deprecated: [] },
  ],
  [
    '6.2.4-1',
    { supported: ['1.18', '1.19', '1.20', '1.21'], deprecated: ['1.16', '1.17'] },
    { supported: ['4.5', '4.6', '4.7', '4.8'], deprecated: ['4.3', '4.4'] },
  ],
];
