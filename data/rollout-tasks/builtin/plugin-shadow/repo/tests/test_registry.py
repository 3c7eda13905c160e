import unittest

import rotkit


class RegistryTest(unittest.TestCase):
    def test_names(self):
        self.assertEqual(rotkit.names(), ["reverse", "rot13", "upper"])

    def test_no_duplicates(self):
        self.assertEqual(rotkit.duplicates(), [])

    def test_unknown(self):
        with self.assertRaises(KeyError):
            rotkit.codec("base64")


class CodecTest(unittest.TestCase):
    def test_rot13_lowercase(self):
        self.assertEqual(rotkit.codec("rot13")("hello"), "uryyb")

    def test_rot13_mixed_case(self):
        self.assertEqual(rotkit.codec("rot13")("Hello, World"), "Uryyb, Jbeyq")

    def test_reverse(self):
        self.assertEqual(rotkit.codec("reverse")("abc"), "cba")

    def test_upper(self):
        self.assertEqual(rotkit.codec("upper")("abc"), "ABC")


if __name__ == "__main__":
    unittest.main()
