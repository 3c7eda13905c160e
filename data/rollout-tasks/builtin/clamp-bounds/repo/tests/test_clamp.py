import unittest

from numutil import clamp


class ClampTest(unittest.TestCase):
    def test_inside(self):
        self.assertEqual(clamp(5, 0, 10), 5)

    def test_below(self):
        self.assertEqual(clamp(-3, 0, 10), 0)

    def test_above(self):
        self.assertEqual(clamp(15, 0, 10), 10)

    def test_at_high_bound(self):
        self.assertEqual(clamp(10, 0, 10), 10)

    def test_floats(self):
        self.assertEqual(clamp(0.25, 0.0, 2.0), 0.25)

    def test_bad_interval(self):
        with self.assertRaises(ValueError):
            clamp(1, 5, 2)


if __name__ == "__main__":
    unittest.main()
