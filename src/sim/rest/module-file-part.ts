/**
 * The `module` file of a multipart upload, as both upload requests take it (POST /v2/modules and
 * POST /v2/local/modules/user-defined/artifacts), or what is wrong with the body; each request
 * answers that in its own words. Node's web Request parses multipart: no extra dependency for a
 * test server.
 */
export async function moduleFilePart(
  contentType: string,
  body: Buffer,
): Promise<File | 'not-multipart' | 'unparsable' | 'missing'> {
  if (!contentType.startsWith('multipart/form-data')) return 'not-multipart';
  let file: File | string | null;
  try {
    const form = await new Request('http://sim.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
    file = form.get('module');
  } catch {
    return 'unparsable';
  }
  return !file || typeof file === 'string' ? 'missing' : file;
}
