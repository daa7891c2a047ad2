"""``paddle.vision.models``: LeNet and the ResNet family, with Paddle's layer names (a Paddle
``state_dict`` of the same model loads into them).  ``pretrained=True`` is refused: weights are
not downloaded here; load a saved ``state_dict`` with ``set_state_dict`` instead."""
from .lenet import LeNet
from .resnet import BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50, resnet101, resnet152

__all__ = ["LeNet", "ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152"]
