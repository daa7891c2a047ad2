"""Paddle's test_ptb_lm_v2, rewritten and shrunk (ten steps instead of 200): the Paddle 2.x spelling
of the PTB language model. The LSTM's weights come from `create_parameter(attr=ParamAttr(...),
default_initializer=...)` kept in Python lists through `add_parameter`, its states in lists
written by index (`hidden_array[k] = m`) in Python loops over the steps and layers of a forward
decorated in the class; the ids are `[batch, steps, 1]` (an embedding of rank 4 reshaped back),
the loss `softmax_with_cross_entropy` averaged over the batch and summed over the steps, SGD.
Converted training equals eager bitwise (losses and final states). The dropout branches hold
`fluid.layers.dropout`'s keywords, which `paddle.nn.functional.dropout` refuses: with the model's
dropout of 0.0 a Python `if` skips them while the Program is built, as eagerly; with a dropout, the
call raises Paddle's TypeError both ways."""
import numpy as np
import pytest

import dy2st
import runtime as rt

SEED = 2020


class SimpleLSTMRNN(rt.nn.Layer):
    def __init__(self, hidden_size, num_steps, num_layers=2, init_scale=0.1, dropout=None):
        super().__init__()
        self._hidden_size = hidden_size
        self._num_layers = num_layers
        self._init_scale = init_scale
        self._dropout = dropout
        self._num_steps = num_steps
        self.weight_1_arr = []
        self.bias_arr = []
        for i in range(self._num_layers):
            weight_1 = self.create_parameter(
                attr=rt.ParamAttr(initializer=rt.nn.initializer.Uniform(low=-self._init_scale, high=self._init_scale)),
                shape=[self._hidden_size * 2, self._hidden_size * 4], dtype="float32",
                default_initializer=rt.nn.initializer.Uniform(low=-self._init_scale, high=self._init_scale))
            self.weight_1_arr.append(self.add_parameter("w_%d" % i, weight_1))
            bias_1 = self.create_parameter(
                attr=rt.ParamAttr(initializer=rt.nn.initializer.Uniform(low=-self._init_scale, high=self._init_scale)),
                shape=[self._hidden_size * 4], dtype="float32",
                default_initializer=rt.nn.initializer.Constant(0.0))
            self.bias_arr.append(self.add_parameter("b_%d" % i, bias_1))

    def forward(self, input_embedding, init_hidden=None, init_cell=None):
        cell_array = []
        hidden_array = []
        for i in range(self._num_layers):
            hidden_array.append(init_hidden[i])
            cell_array.append(init_cell[i])
        res = []
        for index in range(self._num_steps):
            step_input = input_embedding[:, index, :]
            for k in range(self._num_layers):
                pre_hidden = hidden_array[k]
                pre_cell = cell_array[k]
                weight_1 = self.weight_1_arr[k]
                bias = self.bias_arr[k]
                nn = rt.concat(x=[step_input, pre_hidden], axis=1)
                gate_input = rt.matmul(x=nn, y=weight_1)
                gate_input = rt.add(x=gate_input, y=bias)
                i, j, f, o = rt.split(x=gate_input, num_or_sections=4, axis=-1)
                c = pre_cell * rt.nn.functional.sigmoid(f) + rt.nn.functional.sigmoid(i) * rt.tanh(j)
                m = rt.tanh(c) * rt.nn.functional.sigmoid(o)
                hidden_array[k] = m
                cell_array[k] = c
                step_input = m
                if self._dropout is not None and self._dropout > 0.0:
                    step_input = rt.nn.functional.dropout(step_input, dropout_prob=self._dropout,
                                                          dropout_implementation="upscale_in_train")
            res.append(step_input)
        real_res = rt.concat(x=res, axis=1)
        real_res = rt.reshape(real_res, [-1, self._num_steps, self._hidden_size])
        last_hidden = rt.concat(x=hidden_array, axis=1)
        last_hidden = rt.reshape(last_hidden, shape=[-1, self._num_layers, self._hidden_size])
        last_hidden = rt.transpose(x=last_hidden, perm=[1, 0, 2])
        last_cell = rt.concat(x=cell_array, axis=1)
        last_cell = rt.reshape(last_cell, shape=[-1, self._num_layers, self._hidden_size])
        last_cell = rt.transpose(x=last_cell, perm=[1, 0, 2])
        return real_res, last_hidden, last_cell


class PtbModel(rt.nn.Layer):
    def __init__(self, hidden_size, vocab_size, num_layers=2, num_steps=20, init_scale=0.1, dropout=None):
        super().__init__()
        self.hidden_size = hidden_size
        self.vocab_size = vocab_size
        self.init_scale = init_scale
        self.num_layers = num_layers
        self.num_steps = num_steps
        self.dropout = dropout
        self.simple_lstm_rnn = SimpleLSTMRNN(hidden_size, num_steps, num_layers=num_layers, init_scale=init_scale,
                                             dropout=dropout)
        self.embedding = rt.nn.Embedding(vocab_size, hidden_size, sparse=False, weight_attr=rt.ParamAttr(
            name="embedding_para", initializer=rt.nn.initializer.Uniform(low=-init_scale, high=init_scale)))
        self.softmax_weight = self.create_parameter(
            attr=rt.ParamAttr(), shape=[self.hidden_size, self.vocab_size], dtype="float32",
            default_initializer=rt.nn.initializer.Uniform(low=-self.init_scale, high=self.init_scale))
        self.softmax_bias = self.create_parameter(
            attr=rt.ParamAttr(), shape=[self.vocab_size], dtype="float32",
            default_initializer=rt.nn.initializer.Uniform(low=-self.init_scale, high=self.init_scale))

    @dy2st.to_static
    def forward(self, input, label, init_hidden, init_cell):
        init_h = rt.reshape(init_hidden, shape=[self.num_layers, -1, self.hidden_size])
        init_c = rt.reshape(init_cell, shape=[self.num_layers, -1, self.hidden_size])
        x_emb = self.embedding(input)
        x_emb = rt.reshape(x_emb, shape=[-1, self.num_steps, self.hidden_size])
        if self.dropout is not None and self.dropout > 0.0:
            x_emb = rt.nn.functional.dropout(x_emb, dropout_prob=self.dropout,
                                             dropout_implementation="upscale_in_train")
        rnn_out, last_hidden, last_cell = self.simple_lstm_rnn(x_emb, init_h, init_c)
        projection = rt.matmul(x=rnn_out, y=self.softmax_weight)
        projection = rt.add(x=projection, y=self.softmax_bias)
        loss = rt.nn.functional.softmax_with_cross_entropy(logits=projection, label=label, soft_label=False)
        loss = rt.reshape(loss, shape=[-1, self.num_steps])
        loss = rt.mean(loss, axis=[0])
        loss = rt.sum(loss)
        return loss, last_hidden, last_cell


def train(to_static, dropout=0.0, batch_num=10):
    num_layers, batch_size, hidden_size, num_steps, init_scale, vocab_size = 1, 4, 10, 3, 0.1, 1000
    dy2st.enable_to_static(to_static)
    rt.disable_static(rt.CPUPlace())
    try:
        rt.seed(SEED)
        rt.framework.random._manual_program_seed(SEED)
        ptb_model = PtbModel(hidden_size=hidden_size, vocab_size=vocab_size, num_layers=num_layers,
                             num_steps=num_steps, init_scale=init_scale, dropout=dropout)
        sgd = rt.optimizer.SGD(learning_rate=1e-3, parameters=ptb_model.parameters())
        init_hidden = rt.to_tensor(data=np.zeros((num_layers, batch_size, hidden_size), dtype="float32"),
                                   dtype=None, place=None, stop_gradient=True)
        init_cell = rt.to_tensor(data=np.zeros((num_layers, batch_size, hidden_size), dtype="float32"),
                                 dtype=None, place=None, stop_gradient=True)
        losses = []
        for _ in range(batch_num):
            x_data = np.arange(12).reshape(4, 3).astype("int64").reshape((-1, num_steps, 1))
            y_data = np.arange(1, 13).reshape(4, 3).astype("int64").reshape((-1, 1)).reshape((-1, num_steps, 1))
            x = rt.to_tensor(data=x_data, dtype=None, place=None, stop_gradient=True)
            y = rt.to_tensor(data=y_data, dtype=None, place=None, stop_gradient=True)
            dy_loss, last_hidden, last_cell = ptb_model(x, y, init_hidden, init_cell)
            losses.append(dy_loss.numpy())
            dy_loss.backward()
            sgd.minimize(dy_loss)
            ptb_model.clear_gradients()
        return losses, last_hidden.numpy(), last_cell.numpy()
    finally:
        dy2st.enable_to_static(True)


def test_check_result():
    static_losses, hidden_1, cell_1 = train(True)
    dygraph_losses, hidden_2, cell_2 = train(False)
    for a, b in zip(dygraph_losses, static_losses):
        np.testing.assert_array_equal(b, a)
    assert dygraph_losses[-1] < dygraph_losses[0]
    np.testing.assert_array_equal(hidden_1, hidden_2)
    np.testing.assert_array_equal(cell_1, cell_2)


@pytest.mark.parametrize("to_static", [False, True])
def test_the_legacy_dropout_keywords_are_refused_as_by_paddle(to_static):
    with pytest.raises(TypeError, match="dropout_prob"):
        train(to_static, dropout=0.1, batch_num=1)
