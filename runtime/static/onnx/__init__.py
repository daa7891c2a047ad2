"""ONNX export of Programs: ``export`` walks a Program; lowerings are declared with the ops (``ops``).

``lowering`` holds the lowering registry and one-node helpers; ``nn_ops``, ``index_ops`` and
``shape_ops`` the lowerings of op families; ``opset`` fits a model to older opsets.
"""
