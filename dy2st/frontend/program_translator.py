"""``ProgramTranslator``: Paddle's singleton behind ``paddle.jit.enable_to_static``. Code written for
Paddle (its own test utilities among it) switches conversion through it; here its flag is the one
``dy2st.enable_to_static`` sets, so both spellings agree."""
import threading

from . import config


class ProgramTranslator:
    """The one instance (``ProgramTranslator()`` and ``get_instance()`` return the same object)."""

    _lock = threading.Lock()
    _instance = None

    def __new__(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = object.__new__(cls)
        return cls._instance

    @classmethod
    def get_instance(cls) -> "ProgramTranslator":
        """The singleton (the same object as ``ProgramTranslator()``)."""
        return cls()

    @property
    def enable_to_static(self) -> bool:
        """True while converted functions build and run Programs (False: they run eagerly)."""
        return config.to_static_enabled()

    @enable_to_static.setter
    def enable_to_static(self, value: bool) -> None:
        self.enable(value)

    def enable(self, enable_to_static: bool) -> None:
        """Turn conversion on or off for every converted function (``dy2st.enable_to_static``)."""
        if not isinstance(enable_to_static, bool):
            raise TypeError(f"ProgramTranslator.enable: enable_to_static must be a bool, got "
                            f"{type(enable_to_static).__name__}")
        config.enable_to_static(enable_to_static)
