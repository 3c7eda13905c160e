import unittest

from units import convert
from units.convert import units


class ConvertTest(unittest.TestCase):
    def test_cm_to_m(self):
        self.assertAlmostEqual(convert(250, "cm", "m"), 2.5)

    def test_unknown(self):
        with self.assertRaises(ValueError):
            convert(1, "m", "parsec")

    def test_units(self):
        self.assertEqual(units()[:3], ["mm", "cm", "m"])
