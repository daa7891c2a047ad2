"""``rt.vision``: Paddle's ``paddle.vision`` for ported code: the image backend switch, the MNIST
datasets read from local files, a few transforms, the models of ``paddle.vision.models`` and
``paddle.vision.ops`` (``nms``, ``yolo_box``, the RoI poolings, ``box_coder``, ``prior_box``,
``deform_conv2d``, ``matrix_nms``, ``distribute_fpn_proposals``, ``generate_proposals``).

Datasets are never downloaded: the machine may have no network, and a file appearing from the
network is not something a converter should do behind its user's back.  They are read from
Paddle's own cache folder (``~/.cache/paddle/dataset``), so files Paddle fetched earlier work as
they are, or from paths given to the constructor.
"""
from . import datasets, models, ops, transforms
from .image import get_image_backend, image_load, set_image_backend

__all__ = ["datasets", "models", "ops", "transforms", "get_image_backend", "set_image_backend", "image_load"]
