import unittest

from statkit import mean, median, mode


class MeanTest(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)

    def test_empty(self):
        with self.assertRaises(ValueError):
            mean([])


class MedianTest(unittest.TestCase):
    def test_odd(self):
        self.assertEqual(median([3, 1, 2]), 2)

    def test_even(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_even_two(self):
        self.assertEqual(median([10, 20]), 15)

    def test_does_not_mutate(self):
        data = [3, 1, 2, 4]
        median(data)
        self.assertEqual(data, [3, 1, 2, 4])

    def test_accepts_tuple(self):
        self.assertEqual(median((5, 1, 9)), 5)

    def test_empty(self):
        with self.assertRaises(ValueError):
            median([])


class ModeTest(unittest.TestCase):
    def test_mode(self):
        self.assertEqual(mode([1, 2, 2, 3]), 2)


if __name__ == "__main__":
    unittest.main()
