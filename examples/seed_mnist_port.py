"""The seed article's to_static workflow, ported by changing imports.

    paddle            -> runtime as rt
    paddle.jit        -> dy2st
    paddle.static     -> rt.static

MNIST itself needs a download, so this uses scikit-learn's bundled 8x8 digits
(64 pixels instead of 784); everything else follows the article: train with
`@to_static` on `forward` (the loop is the same as in dygraph), save the
state_dict, save an inference model with an InputSpec, load it without the
class and predict.

    python examples/seed_mnist_port.py [OUT_DIR]
"""
import os
import sys

from sklearn.datasets import load_digits

import dy2st
import runtime as rt
import runtime.nn.functional as F
from runtime.static import InputSpec


class MNIST(rt.nn.Layer):
    def __init__(self):
        super(MNIST, self).__init__()
        self.fc = rt.nn.Linear(in_features=64, out_features=10)

    @dy2st.to_static
    def forward(self, inputs):
        outputs = self.fc(inputs)
        return outputs


def norm_img(img):
    batch_size = img.shape[0]
    img = img / 8.0 - 1          # the digits' pixels are 0..16
    img = rt.reshape(img, [batch_size, 64])
    return img


def train(model, images, labels, epochs=10, batch_size=16):
    model.train()
    opt = rt.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
    for epoch in range(epochs):
        for batch_id in range(len(images) // batch_size):
            sl = slice(batch_id * batch_size, (batch_id + 1) * batch_size)
            data = norm_img(rt.to_tensor(images[sl])).astype("float32")
            label = rt.to_tensor(labels[sl]).astype("int64")
            predicts = model(data)
            loss = F.cross_entropy(predicts, label)
            avg_loss = rt.mean(loss)
            if batch_id % 50 == 0:
                print("epoch_id: {}, batch_id: {}, loss is: {}".format(epoch, batch_id, avg_loss.numpy()))
            avg_loss.backward()
            opt.step()
            opt.clear_grad()


def main(out_dir="seed_port_out"):
    digits = load_digits()
    images, labels = digits.data.astype("float32"), digits.target.astype("int64")
    rt.seed(0)
    model = MNIST()
    train(model, images[:1500], labels[:1500])
    os.makedirs(out_dir, exist_ok=True)
    rt.save(model.state_dict(), os.path.join(out_dir, "mnist.pdparams"))

    # save inference model
    state_dict = rt.load(os.path.join(out_dir, "mnist.pdparams"))
    model.set_state_dict(state_dict)
    model.eval()
    path = os.path.join(out_dir, "inference", "mnist")
    dy2st.save(layer=model, path=path, input_spec=[InputSpec(shape=[None, 64], dtype="float32", name="image")])
    print("==>Inference model saved in {}.".format(path))

    loaded_model = dy2st.load(path)
    loaded_model.eval()
    test_image = norm_img(rt.to_tensor(images[1500:]))
    preds = loaded_model(test_image)
    pred_label = rt.argmax(preds, axis=1)
    accuracy = float((pred_label.numpy() == labels[1500:]).mean())
    print("The label of the first test image is:", labels[1500], "predicted:", int(pred_label[0]))
    print("accuracy of the loaded inference model on {} test images: {:.2%}".format(len(labels) - 1500, accuracy))
    return accuracy


if __name__ == "__main__":
    main(*sys.argv[1:])
