import unittest

from confkit import load_with_defaults, parse


class ParseTest(unittest.TestCase):
    def test_pairs(self):
        self.assertEqual(parse("a = 1\nb=x"), {"a": "1", "b": "x"})

    def test_comments_ignored(self):
        self.assertEqual(parse("# note\n\nname = demo\n"), {"name": "demo"})

    def test_bad_line(self):
        with self.assertRaises(ValueError):
            parse("no separator")


class DefaultsTest(unittest.TestCase):
    def test_defaults_applied(self):
        self.assertEqual(load_with_defaults(""), {"name": "service", "timeout": 30, "retries": 3, "verbose": False})

    def test_override_converts(self):
        config = load_with_defaults("timeout = 5\nverbose = true")
        self.assertEqual(config["timeout"], 5)
        self.assertIs(config["verbose"], True)

    def test_false_is_false(self):
        self.assertIs(load_with_defaults("verbose = false")["verbose"], False)

    def test_types(self):
        config = load_with_defaults("")
        self.assertIsInstance(config["timeout"], int)
        self.assertIsInstance(config["retries"], int)
        self.assertIsInstance(config["verbose"], bool)

    def test_unknown_key(self):
        with self.assertRaises(KeyError):
            load_with_defaults("colour = red")


if __name__ == "__main__":
    unittest.main()
