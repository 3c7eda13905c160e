import unittest

from numerals import from_roman, to_roman


class ToRomanTest(unittest.TestCase):
    def test_additive(self):
        self.assertEqual(to_roman(1666), "MDCLXVI")

    def test_three(self):
        self.assertEqual(to_roman(3), "III")

    def test_four(self):
        self.assertEqual(to_roman(4), "IV")

    def test_mixed(self):
        self.assertEqual(to_roman(1994), "MCMXCIV")

    def test_largest(self):
        self.assertEqual(to_roman(3999), "MMMCMXCIX")

    def test_zero_rejected(self):
        with self.assertRaises(ValueError):
            to_roman(0)

    def test_too_large_rejected(self):
        with self.assertRaises(ValueError):
            to_roman(4000)


class FromRomanTest(unittest.TestCase):
    def test_from_roman(self):
        self.assertEqual(from_roman("MCMXCIV"), 1994)

    def test_round_trip(self):
        for number in (1, 3, 8, 40, 90, 400, 1666, 2024):
            self.assertEqual(from_roman(to_roman(number)), number)


if __name__ == "__main__":
    unittest.main()
