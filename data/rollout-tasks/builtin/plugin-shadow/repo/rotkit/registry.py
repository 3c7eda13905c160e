"""Loads every plugin module in rotkit.plugins, in name order; a later plugin with the same NAME wins."""
import importlib
import pkgutil

from . import plugins


def _load():
    loaded = []
    for info in sorted(pkgutil.iter_modules(plugins.__path__), key=lambda item: item.name):
        module = importlib.import_module("%s.%s" % (plugins.__name__, info.name))
        loaded.append((module.NAME, info.name, module.encode))
    return loaded


def names():
    return sorted({name for name, _, _ in _load()})


def duplicates():
    """Codec names that more than one plugin module defines."""
    seen = {}
    for name, module, _ in _load():
        seen.setdefault(name, []).append(module)
    return sorted(name for name, modules in seen.items() if len(modules) > 1)


def codec(name):
    found = None
    for plugin_name, _, encode in _load():
        if plugin_name == name:
            found = encode
    if found is None:
        raise KeyError("no codec %r" % name)
    return found
