/**
 * Test ids as task data write them → the stdlib unittest name the scoring runner loads. SWE-bench
 * lists tests in its runner's own spelling; the scoring sandbox has stdlib python only, so the
 * three spellings that name a unittest test are accepted and anything else is refused at load time.
 *   unittest     tests.test_x.Case.test_y                       (as is)
 *   Django       test_y (tests.test_x.Case)  /  test_y (tests.test_x.Case.test_y)
 *   pytest       tests/test_x.py::Case::test_y                  (a unittest.TestCase class only)
 */
export interface TestRef {
  /** The id as the task lists it (reported back in scores). */
  readonly id: string;
  /** Dotted name for unittest.TestLoader.loadTestsFromName. */
  readonly target: string;
}

const DOTTED = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/;
const DJANGO = /^([A-Za-z_]\w*) \(([A-Za-z_][\w.]*)\)$/;
const PYTEST = /^((?:[\w.-]+\/)*[A-Za-z_]\w*)\.py::([A-Za-z_]\w*)::([A-Za-z_]\w*)$/;

/** The unittest target of `id`, or null when it is none of the accepted spellings. */
export function unittestTarget(id: string): string | null {
  if (DOTTED.test(id)) return id;
  const django = DJANGO.exec(id);
  if (django) {
    const [, name, inner] = django;
    return inner.endsWith(`.${name}`) ? inner : `${inner}.${name}`;
  }
  const pytest = PYTEST.exec(id);
  if (pytest) {
    const [, path, cls, name] = pytest;
    if (path.split('/').some((part) => !/^[A-Za-z_]\w*$/.test(part))) return null;
    return `${path.replaceAll('/', '.')}.${cls}.${name}`;
  }
  return null;
}

export const TEST_ID_FORMS =
  'a unittest name (tests.test_x.Case.test_y), a Django-style id ("test_y (tests.test_x.Case)") or a pytest id of a unittest class (tests/test_x.py::Case::test_y); parametrized pytest ids and bare pytest functions need pytest, which the task image does not have';
