"""``paddle.base.layers``: kept only as a name. Paddle 2.5+ emptied it (its ops moved to ``paddle.*``
and ``paddle.static.nn``); code still binds the module (``alias = paddle.base.layers``) without using it."""
